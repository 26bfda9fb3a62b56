import { script } from './scripts.js';

/** Where the log of purges is before any purge (as `purgePosition` in scripts.ts writes it). */
export const BEFORE_ANY_PURGE = ' 0';

/** Purges the log keeps: an instance further behind than this drops all it holds instead of replaying them. */
export const PURGE_LOG_LENGTH = 1_000;

/**
 * A purge of one tag in one atomic step, so that no instance reads a window
 * of it between its dropping and its mark. KEYS the tag's index, its mark,
 * the log's state, the log; ARGV now, tag, keep ms (how long a window is
 * kept, and so the longest a fetch claimed before now may still publish),
 * an id for a new log, the log's length, the channel to tell the fleet on.
 *
 * Drops every window key in the index (UNLINK: Redis frees them in the
 * background) and the index; appends `sequence tag` to the log (capped) and
 * marks the tag with where the log now is, for keep ms, so that
 * PUBLISH_WINDOW_SCRIPT stores no window whose fetch was claimed before;
 * publishes the sequence. Answers {windows dropped, log id, sequence}. The
 * token, the holds, the budget and the rate limits are in no index: a purge
 * never touches them.
 */
export const PURGE_SCRIPT = script(`
local dropped = 0
if redis.call('TYPE', KEYS[1]).ok == 'zset' then
  for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do dropped = dropped + redis.call('UNLINK', key) end
end
redis.call('DEL', KEYS[1])
if not isHash(KEYS[3]) or redis.call('HGET', KEYS[3], 'id') == false then
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[3], 'id', ARGV[4], 'sequence', '0')
end
if redis.call('EXISTS', KEYS[4]) == 1 and redis.call('TYPE', KEYS[4]).ok ~= 'list' then redis.call('DEL', KEYS[4]) end
local sequence = redis.call('HINCRBY', KEYS[3], 'sequence', 1)
redis.call('SET', KEYS[2], purgePosition(KEYS[3]), 'PX', tonumber(ARGV[3]))
redis.call('LPUSH', KEYS[4], sequence .. ' ' .. ARGV[2])
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
redis.call('PUBLISH', ARGV[6], sequence)
return {dropped, redis.call('HGET', KEYS[3], 'id'), sequence}`);

/**
 * The purges since a position in the log. KEYS the log's state, the log;
 * ARGV now, `where` (only where the log is) or `since`, the log id known
 * ('' for no log yet), the sequence known. Answers {'at', id, sequence} when
 * nothing is new, {'since', id, sequence, entries newest first…}, or {'gap',
 * id, sequence} when the log is another (Redis lost it) or no longer holds
 * them all. No log at all reads as id '' at 0.
 */
export const PURGES_SINCE_SCRIPT = script(`
local id, sequence = '', 0
if isHash(KEYS[1]) then
  local state = redis.call('HMGET', KEYS[1], 'id', 'sequence')
  id, sequence = state[1] or '', tonumber(state[2]) or 0
end
if ARGV[2] == 'where' then return {'at', id, sequence} end
local from = tonumber(ARGV[4])
if ARGV[3] == '' and id ~= '' then from = 0 end
if (ARGV[3] ~= '' and ARGV[3] ~= id) or from > sequence then return {'gap', id, sequence} end
if from == sequence then return {'at', id, sequence} end
local entries = {}
if redis.call('TYPE', KEYS[2]).ok == 'list' then entries = redis.call('LRANGE', KEYS[2], 0, sequence - from - 1) end
if #entries < sequence - from then return {'gap', id, sequence} end
local answer = {'since', id, sequence}
for _, entry in ipairs(entries) do answer[#answer + 1] = entry end
return answer`);

export const PURGE_SCRIPTS = [PURGE_SCRIPT, PURGES_SINCE_SCRIPT];
