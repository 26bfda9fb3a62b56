import { script } from './scripts.js';

/**
 * Purges on Redis, in steps that each touch either the fleet's purge keys or
 * one window's keys, never both: a Redis Cluster runs no script across hash
 * slots, and the fleet's purge keys share one slot while windows are spread.
 *
 * The fleet's purge keys: its state (a hash: `id` of the current log,
 * `marked`, the purges marked so far, `logged`, those logged so far), the
 * log of the last purges (`logged tag`, newest first), each tag's index (a
 * sorted set of the window keys stored under the tag, by when they expire)
 * and each tag's mark (where the state was when it was last purged,
 * `id marked`). Beside each window: its tombstone (where the state was when a
 * purge dropped it). A position is `id marked`; ' 0' before any purge.
 *
 * A purge: MARK_PURGE_SCRIPT marks the tag; then, a page at a time,
 * INDEX_PAGE_SCRIPT reads the index, DROP_WINDOW_SCRIPT drops each window the
 * page names and leaves its tombstone, and UNINDEX_SCRIPT takes the page out of
 * the index once its windows are dropped (a purge cut short, its reply lost,
 * finds the rest when sent again); LOG_PURGE_SCRIPT logs the purge and tells
 * the fleet, last, so that no instance applies it while Redis still holds a
 * window it drops. A window's publish: REGISTER_WINDOW_SCRIPT checks
 * its tags' marks against the position its claim saw (POSITION_SCRIPT) and
 * indexes it, then PUBLISH_WINDOW_SCRIPT (scripts.ts) stores it unless its
 * tombstone says a purge dropped it since. Whichever order the two meet in, no
 * window fetched before a purge of any of its tags is stored after it.
 */

/** Where the log of purges is before any purge: no log, nothing marked. */
export const BEFORE_ANY_PURGE = ' 0';

/** Purges the log keeps: an instance further behind than this drops all it holds instead of replaying them. */
export const PURGE_LOG_LENGTH = 1_000;

/** Where purges are now, as a claim reads it before its fetch. KEYS state. Answers the position. */
export const POSITION_SCRIPT = script(`
if not isHash(KEYS[1]) then return ' 0' end
local state = redis.call('HMGET', KEYS[1], 'id', 'marked')
return (state[1] or '') .. ' ' .. (state[2] or '0')`);

/**
 * Indexes a window about to be stored under each of its tags, unless a purge
 * of any of them was marked after `seen`, or the state is another than `seen`
 * was read in (the first purge came since, or Redis lost the state: marks may
 * be lost with it). KEYS state, then each tag's index and mark; ARGV now, the
 * window's key, keep ms, seen. An index loses its expired keys as it gains
 * one, and lives as long as its longest-kept key. Answers 1 when indexed, 0
 * when purged since.
 */
export const REGISTER_WINDOW_SCRIPT = script(`
local now = clock(ARGV[1])
local keep = tonumber(ARGV[3])
local seenLog = string.match(ARGV[4], '^(%S*) %d+$')
local id = isHash(KEYS[1]) and redis.call('HGET', KEYS[1], 'id') or ''
if seenLog == nil or id ~= seenLog then return 0 end
for i = 3, #KEYS, 2 do
  if redis.call('TYPE', KEYS[i]).ok == 'string' and purgedAfter(redis.call('GET', KEYS[i]), ARGV[4]) then return 0 end
end
for i = 2, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('TYPE', KEYS[i]).ok ~= 'zset' then redis.call('DEL', KEYS[i]) end
  redis.call('ZADD', KEYS[i], now + keep, ARGV[2])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. now)
  if redis.call('PTTL', KEYS[i]) < keep then redis.call('PEXPIRE', KEYS[i], keep) end
end
return 1`);

/**
 * The first step of a purge: the tag marked at a new position, for keep ms
 * (the longest a window lives, and so the longest a fetch claimed before
 * could still publish). Its index is left whole: a window indexed from now on
 * was claimed after the mark, and dropping it too only costs a fetch. KEYS
 * state, the tag's mark; ARGV now, keep ms, an id for a new log. Answers the
 * position.
 */
export const MARK_PURGE_SCRIPT = script(`
if not isHash(KEYS[1]) or redis.call('HGET', KEYS[1], 'id') == false then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'id', ARGV[3], 'marked', '0', 'logged', '0')
end
local position = redis.call('HGET', KEYS[1], 'id') .. ' ' .. redis.call('HINCRBY', KEYS[1], 'marked', 1)
redis.call('SET', KEYS[2], position, 'PX', tonumber(ARGV[2]))
return position`);

/**
 * The first count entries of a tag's index (soonest to expire first), left in
 * it; an index of another type (planted) is dropped. KEYS the index; ARGV now,
 * count. Answers {window key, score, …}.
 */
export const INDEX_PAGE_SCRIPT = script(`
if redis.call('TYPE', KEYS[1]).ok ~= 'zset' then
  redis.call('UNLINK', KEYS[1])
  return {}
end
return redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')`);

/**
 * Takes a page INDEX_PAGE_SCRIPT read out of the index, once its windows are
 * dropped: each entry still at the score read (one indexed again since, by a
 * fetch claimed after the mark, stays indexed for the next purge). KEYS the
 * index; ARGV now, window key, score, …. Answers how many it took.
 */
export const UNINDEX_SCRIPT = script(`
local taken = 0
for i = 2, #ARGV, 2 do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) == ARGV[i + 1] then taken = taken + redis.call('ZREM', KEYS[1], ARGV[i]) end
end
return taken`);

/**
 * Drops one window a purge names (UNLINK: Redis frees it in the background),
 * and leaves its tombstone, the purge's position, for keep ms. KEYS window,
 * tombstone; ARGV now, position, keep ms. Answers 1 when a window was there.
 */
export const DROP_WINDOW_SCRIPT = script(`
redis.call('SET', KEYS[2], ARGV[2], 'PX', tonumber(ARGV[3]))
return redis.call('UNLINK', KEYS[1])`);

/**
 * The last step of a purge: logged as `logged tag` (the log capped) and told
 * on the sharded channel (SPUBLISH: in the purge keys' slot, so that a cluster
 * runs it on their master). KEYS state, log; ARGV now, tag, the log's length, channel,
 * an id for a new log (Redis lost the state since the mark: the log begins
 * again, which its readers take for a gap). Answers {log id, logged}.
 */
export const LOG_PURGE_SCRIPT = script(`
if not isHash(KEYS[1]) or redis.call('HGET', KEYS[1], 'id') == false then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('HSET', KEYS[1], 'id', ARGV[5], 'marked', '0', 'logged', '0')
end
if redis.call('EXISTS', KEYS[2]) == 1 and redis.call('TYPE', KEYS[2]).ok ~= 'list' then redis.call('DEL', KEYS[2]) end
local logged = redis.call('HINCRBY', KEYS[1], 'logged', 1)
redis.call('LPUSH', KEYS[2], logged .. ' ' .. ARGV[2])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
redis.call('SPUBLISH', ARGV[4], logged)
return {redis.call('HGET', KEYS[1], 'id'), logged}`);

/**
 * The purges logged since a position in the log. KEYS state, log; ARGV now,
 * `where` (only where the log is) or `since`, the log id known ('' for no log
 * yet), the count logged known, the most entries the log keeps. Answers
 * {'at', id, logged} when nothing is new, {'since', id, logged, entries newest
 * first…}, or {'gap', id, logged} when the log is another (Redis lost it) or
 * no longer holds them all (more are new than it keeps, whatever the count
 * stored says: never a longer read). No log at all reads as id '' at 0.
 */
export const PURGES_SINCE_SCRIPT = script(`
local id, logged = '', 0
if isHash(KEYS[1]) then
  local state = redis.call('HMGET', KEYS[1], 'id', 'logged')
  id, logged = state[1] or '', tonumber(state[2]) or 0
end
if ARGV[2] == 'where' then return {'at', id, logged} end
local from = tonumber(ARGV[4])
if ARGV[3] == '' and id ~= '' then from = 0 end
if (ARGV[3] ~= '' and ARGV[3] ~= id) or from > logged then return {'gap', id, logged} end
if from == logged then return {'at', id, logged} end
if logged - from > tonumber(ARGV[5]) then return {'gap', id, logged} end
local entries = {}
if redis.call('TYPE', KEYS[2]).ok == 'list' then entries = redis.call('LRANGE', KEYS[2], 0, logged - from - 1) end
if #entries < logged - from then return {'gap', id, logged} end
local answer = {'since', id, logged}
for _, entry in ipairs(entries) do answer[#answer + 1] = entry end
return answer`);

export const PURGE_SCRIPTS = [
  POSITION_SCRIPT,
  REGISTER_WINDOW_SCRIPT,
  MARK_PURGE_SCRIPT,
  INDEX_PAGE_SCRIPT,
  DROP_WINDOW_SCRIPT,
  UNINDEX_SCRIPT,
  LOG_PURGE_SCRIPT,
  PURGES_SINCE_SCRIPT,
];
