import { tracingChannel } from 'node:diagnostics_channel';
import { CHANNELS, type CommandTraceContext } from '@redis/client';
import { type Alarm, systemAlarm } from '../../../src/upstream/resilience/clock.js';

/** One command node-redis sent, in this process: which node it went to, and how many upstream searches had been made by then. */
export interface SentCommand {
  command: string;
  /** For EVALSHA, the script's digest. */
  script: string | undefined;
  node: string;
  upstreamSearchesBefore: number;
}

/**
 * Every command node-redis sends in this process (every gateway of a bench's fleet, whatever the topology), from its
 * tracing channel: a command is one round trip (the gateway pipelines nothing on a request's way), and which node it
 * went to tells how a cluster spreads them. `upstreamSearches` reads the lookup service's count when each is sent,
 * which orders it before or after a search's upstream call (one thread: the call is counted when it arrives).
 */
export function watchRedisCommands(upstreamSearches: () => number): {
  sent: SentCommand[];
  /** True once a command `matches` is sent (at once if one was); false if none is before `alarm` rings after `withinMs`. */
  whenSent(matches: (command: SentCommand) => boolean, withinMs: number, alarm?: Alarm): Promise<boolean>;
  stop(): void;
} {
  const sent: SentCommand[] = [];
  const waiting = new Set<(command: SentCommand) => void>();
  const channel = tracingChannel<CommandTraceContext>(CHANNELS.TRACE_COMMAND);
  const ignore = () => {};
  const handlers = {
    start(context: CommandTraceContext) {
      const command = {
        command: context.command,
        script: /^evalsha$/i.test(context.command) ? context.args[1] : undefined,
        node: `${context.serverAddress}:${context.serverPort}`,
        upstreamSearchesBefore: upstreamSearches(),
      };
      sent.push(command);
      for (const notify of waiting) notify(command);
    },
    end: ignore,
    asyncStart: ignore,
    asyncEnd: ignore,
    error: ignore,
  };
  const whenSent = (matches: (command: SentCommand) => boolean, withinMs: number, alarm: Alarm = systemAlarm) =>
    sent.some(matches)
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => {
          const settle = (found: boolean) => {
            cancel();
            waiting.delete(notify);
            resolve(found);
          };
          const notify = (command: SentCommand) => {
            if (matches(command)) settle(true);
          };
          waiting.add(notify);
          const cancel = alarm(withinMs, () => settle(false));
        });
  channel.subscribe(handlers);
  return { sent, whenSent, stop: () => channel.unsubscribe(handlers) };
}
