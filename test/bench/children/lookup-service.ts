import { startLookupService, type LookupService } from '../../../src/lookup-service/index.js';
import type { LookupCounts, LookupKnobs, LookupStarted, LookupStartParams } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';

/** The embedded lookup service in a process of its own, so that its CPU time is not counted as the gateway's. */
let service: LookupService | undefined;

function running(): LookupService {
  if (service === undefined) throw new Error('The lookup service has not been started');
  return service;
}

serveParent({
  async start(params): Promise<LookupStarted> {
    const { searchLatencyMs } = params as LookupStartParams;
    service = await startLookupService({ searchLatencyMs });
    return { url: service.url, credentials: { ...service.credentials } };
  },
  knobs(params) {
    Object.assign(running().knobs, params as LookupKnobs);
  },
  counters(): LookupCounts {
    const { searchRequests, tokenRequests } = running().counters;
    return { searchRequests, tokenRequests };
  },
  stats: processStats,
});
