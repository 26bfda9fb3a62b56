import SchemaBuilder from '@pothos/core';
import { isObjectType } from 'graphql';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin, { decodeGlobalID as decodeRelayGlobalID } from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import type { GatewayContext } from './context.js';
import { BadUserInputError } from '../errors/field-errors.js';

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    CountryCode: { Input: string; Output: string };
    Date: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date };
    URL: { Input: URL; Output: string };
  };
}>({
  plugins: [RelayPlugin, DataloaderPlugin, ValidationPlugin],
  defaultFieldNullability: false,
  relay: {
    decodeGlobalID,
    nodesOnConnection: { description: 'The companies of this page, for clients that need no cursors.' },
    edgesFieldOptions: { nullable: false, description: 'The results of this page, each with its cursor.' },
    nodeFieldOptions: { nullable: false, description: 'The company at this position of the results.' },
    cursorFieldOptions: {
      description: 'Opaque cursor of this position; pass it as `after` to continue from here, or as `before` to page back.',
    },
    pageInfoFieldOptions: { description: 'Where this page stands in the results.' },
    nodeTypeOptions: { description: 'An object with a global ID that `node(id:)` fetches again.' },
    idFieldOptions: { description: 'Global ID, stable across requests; fetch the object again with `node(id:)`.' },
    pageInfoTypeOptions: { description: 'Relay page information of a connection.' },
    hasNextPageFieldOptions: {
      description: 'Whether the search has results after this page, to fetch with `after: endCursor`; known whichever way you page.',
    },
    hasPreviousPageFieldOptions: {
      description: 'Whether the search has results before this page, to fetch with `before: startCursor`; known whichever way you page.',
    },
    startCursorFieldOptions: { description: 'Cursor of the first result of this page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'Cursor of the last result of this page; null when the page is empty.' },
    nodeQueryOptions: {
      description: 'Fetches any object by its global ID; null when it no longer exists.',
      args: { id: { description: 'A global ID from an `id` field.' } },
      resolve: (_root, { id }, _context, info, resolveNode) => {
        const type = info.schema.getType(id.typename);
        if (!isObjectType(type) || !type.getInterfaces().some((node) => node.name === 'Node')) {
          throw new BadUserInputError('id', 'is not a global ID issued by this gateway');
        }
        return resolveNode(id);
      },
    },
    nodesQueryOptions: false,
  },
  validation: {
    validationError: (failure) => BadUserInputError.fromIssues(failure.issues),
  },
});

function decodeGlobalID(globalID: string) {
  try {
    return decodeRelayGlobalID(globalID);
  } catch {
    throw new BadUserInputError('id', 'is not a global ID issued by this gateway');
  }
}

builder.queryType({ description: 'Company search over the Company Lookup Service.' });
