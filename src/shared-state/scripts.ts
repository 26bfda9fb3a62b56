import { createHash } from 'node:crypto';

/** A Lua script and the digest EVALSHA names it by. */
export interface LuaScript {
  source: string;
  sha1: string;
}

function script(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/** Deletes KEYS[1] only while it holds ARGV[1]: a lock released, or a token dropped, only by whoever knows its value. */
export const DELETE_IF_SCRIPT = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * A token bucket in one atomic step, on Redis's clock (TIME), so that the
 * instances' clocks need not agree: ARGV burst, tokens per millisecond, count,
 * and how many must be left after (a reserve the caller may not take).
 * Answers {1, 0} when the count was taken, {0, ms until it could be}. The key
 * lives as long as a full refill takes, then reads as a full bucket anyway;
 * so does a stored count outside 0..burst, which every take would otherwise
 * keep alive.
 */
export const BUCKET_SCRIPT = script(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local burst = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local keep = tonumber(ARGV[4]) or 0
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
-- Only 0..burst is a count this script wrote: anything else (NaN too) reads as a full bucket, not one that never refills.
if tokens == nil or tokens ~= tokens or tokens < 0 or tokens > burst then tokens = burst end
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
local allowed = 0
local waitMs = 0
if tokens - count >= keep then
  tokens = tokens - count
  allowed = 1
else
  waitMs = math.ceil((count + keep - tokens) / perMs)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / perMs) + 1000)
return {allowed, waitMs}`);
