import { LOG_LEVELS, type LogLevel } from '../logger.js';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HOST,
  DEFAULT_IDLE_SOCKET_TIMEOUT_MS,
  DEFAULT_LOG_LEVEL,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_PORT,
  DEFAULT_REFUSAL_LINGER_BYTES,
  DEFAULT_REFUSAL_LINGER_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RESPONSE_WRITE_TIMEOUT_MS,
} from './defaults.js';
import type { EnvReader } from './env-reader.js';

/** Where the gateway listens and how it treats client connections. */
export interface ServerSettings {
  host: string;
  port: number;
  /** How long a client may take to send its request headers; at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long a client may take to send its whole request, headers and body. */
  requestTimeoutMs: number;
  /** Connections served at once; a few more are answered 503 TOO_MANY_CONNECTIONS, the rest closed at once. */
  maxConnections: number;
  /** Of those, most served per client address (IPv6 by /64); 0: no such limit. Off behind TRUSTED_PROXY_COUNT proxies. */
  maxConnectionsPerAddress: number;
  /** After refusing a request whose body is still coming, how long and how much of it is read and thrown away so the client sees the answer. */
  refusalLingerMs: number;
  refusalLingerBytes: number;
  /** No byte moving either way this long closes a connection, unless an answer on it is still being worked out. */
  idleSocketTimeoutMs: number;
  /** How long a complete answer may take to be handed over to the network before its connection is closed. */
  responseWriteTimeoutMs: number;
}

/** The address, how long a request may take to arrive and its answer to leave, how many connections are served, how refusals end. */
export function readServerSettings(reader: EnvReader): ServerSettings {
  const host = reader.host('HOST') ?? DEFAULT_HOST;
  const port = reader.integer('PORT', DEFAULT_PORT, 0, 65_535);
  const headersTimeoutMs = reader.integer('HEADERS_TIMEOUT_MS', DEFAULT_HEADERS_TIMEOUT_MS, 100, 600_000);
  const requestTimeoutMs = reader.integer('REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs && !reader.refused('HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS')) {
    reader.problem(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs}), which covers the headers too`,
    );
  }
  return {
    host,
    port,
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: reader.integer('MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS, 1, 1_000_000),
    maxConnectionsPerAddress: reader.integer('MAX_CONNECTIONS_PER_ADDRESS', DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 0, 1_000_000),
    refusalLingerMs: reader.integer('REFUSAL_LINGER_MS', DEFAULT_REFUSAL_LINGER_MS, 0, 60_000),
    refusalLingerBytes: reader.integer('REFUSAL_LINGER_BYTES', DEFAULT_REFUSAL_LINGER_BYTES, 0, 64 * 1024 * 1024),
    idleSocketTimeoutMs: reader.integer('IDLE_SOCKET_TIMEOUT_MS', DEFAULT_IDLE_SOCKET_TIMEOUT_MS, 100, 3_600_000),
    responseWriteTimeoutMs: reader.integer('RESPONSE_WRITE_TIMEOUT_MS', DEFAULT_RESPONSE_WRITE_TIMEOUT_MS, 100, 3_600_000),
  };
}

export function readLogLevel(reader: EnvReader): LogLevel {
  return reader.oneOf('LOG_LEVEL', LOG_LEVELS, DEFAULT_LOG_LEVEL);
}
