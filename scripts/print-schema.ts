import { writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../src/schema/index.js';

const SCHEMA_FILE = new URL('../schema.graphql', import.meta.url);

writeFileSync(SCHEMA_FILE, `${printSchema(lexicographicSortSchema(schema))}\n`);
