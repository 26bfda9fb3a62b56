import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on `host`:`port` and answers the base URL bound (the port chosen
 * where `port` is 0). A failure names the setting that chose the address, so
 * that "address in use" says which variable to change, not only the errno.
 */
/** The variables that chose an address, e.g. HOST and PORT. */
export interface AddressSettings {
  host: string;
  port: string;
}

export async function listen(server: Server, host: string, port: number, settings: AddressSettings): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new Error(listenProblem(error, host, port, settings), { cause: error }));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${bound}`;
}

function listenProblem(error: NodeJS.ErrnoException, host: string, port: number, settings: AddressSettings): string {
  const where = `${host}:${port}`;
  const setting = settings.port;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${setting}=${port}: ${where} is already in use (EADDRINUSE) by another process; stop it, or set ${setting} to a free port (0 lets the system choose one)`;
    case 'EACCES':
      return `${setting}=${port}: this user may not listen on ${where} (EACCES); ports below 1024 need privileges, so set ${setting} to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `${where} is not an address of this machine (EADDRNOTAVAIL); set ${settings.host} to one of its addresses, or 0.0.0.0 for all`;
    default:
      return `Cannot listen on ${where} (${settings.host}, ${setting}): ${error.message}`;
  }
}
