import { createHash } from 'node:crypto';

/** A Lua script and the digest EVALSHA names it by. */
export interface LuaScript {
  source: string;
  sha1: string;
}

/**
 * Every script takes the time as its first argument and reads Redis's own
 * clock (TIME) when it is empty: what is fresh, held or refilled is judged by
 * one clock for the whole fleet, whatever the instances' clocks say. Tests
 * pass a clock of their own, as they do to every other part.
 */
const PRELUDE = `
local function clock(given)
  local now = tonumber(given)
  if now then return now end
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Whether KEYS[i] holds a hash: a value of another type (planted, or left by an older gateway) reads as none.
local function isHash(key)
  return redis.call('TYPE', key).ok == 'hash'
end

-- Takes count tokens from a bucket of burst refilled at perMs, all or none and only if keep are left after:
-- 1, 0 when taken, else 0 and the ms until they could be. The key lives as long as a full refill takes, then reads as
-- a full bucket anyway; so does a stored count outside 0..burst (NaN too), which every take would otherwise keep alive.
local function take(key, burst, perMs, count, keep, now)
  if redis.call('EXISTS', key) == 1 and not isHash(key) then redis.call('DEL', key) end
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1])
  if tokens == nil or tokens ~= tokens or tokens < 0 or tokens > burst then tokens = burst end
  local at = tonumber(state[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
  local allowed, waitMs = 0, 0
  if tokens - count >= keep then
    tokens = tokens - count
    allowed = 1
  else
    waitMs = math.ceil((count + keep - tokens) / perMs)
  end
  redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.ceil(burst / perMs) + 1000)
  return allowed, waitMs
end

-- How long another instance's hold keeps this one (me) from calling the upstream, and whether it was a 429: 0, 0 for
-- none. One longer than any instance writes (longest) is not a gateway's: one set by hand would hold the fleet for good.
local function held(key, me, longest, now)
  if not isHash(key) then return 0, 0 end
  local hold = redis.call('HMGET', key, 'by', 'until', 'rateLimited')
  local untilMs = tonumber(hold[2])
  if hold[1] == me or untilMs == nil or untilMs ~= untilMs then return 0, 0 end
  local waitMs = untilMs - now
  if waitMs <= 0 or waitMs > longest then return 0, 0 end
  return math.ceil(waitMs), hold[3] == '1' and 1 or 0
end

-- Whether the purge marked at position \`mark\` ('<log id> <marked>', see purge-scripts.ts) came after \`seen\`, the
-- position a claim found: later in the same log, or in another (one begun since, or after Redis lost one). Anything
-- that does not read as a position counts as a purge after it.
local function purgedAfter(mark, seen)
  local markLog, markCount = string.match(mark, '^(%S*) (%d+)$')
  local seenLog, seenCount = string.match(seen, '^(%S*) (%d+)$')
  if markLog == nil or seenLog == nil then return true end
  return markLog ~= seenLog or tonumber(markCount) > tonumber(seenCount)
end

-- Takes lock for id (SET NX PX): 'new'; finds it already this id's (a claim asked again after a late answer): 'mine';
-- or held by another: false.
local function lock(key, id, ms)
  if redis.call('GET', key) == id then return 'mine' end
  if redis.call('SET', key, id, 'NX', 'PX', ms) then return 'new' end
  return false
end
`;

export function script(body: string): LuaScript {
  const source = `${PRELUDE}\n${body}`;
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/** Deletes KEYS[1] only while it holds ARGV[2] (ARGV[1] is the time): a lock released only by whoever holds it. */
export const DELETE_IF_SCRIPT = script(`
if redis.call('GET', KEYS[1]) == ARGV[2] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * A token bucket in one atomic step. KEYS bucket; ARGV now, burst, tokens per
 * millisecond, count, and how many must be left after (a reserve the caller
 * may not take). Answers {1, 0} when the count was taken, {0, ms until it could be}.
 */
export const BUCKET_SCRIPT = script(`
local allowed, waitMs = take(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), clock(ARGV[1]))
return {allowed, waitMs}`);

/**
 * A window lookup in one round trip. KEYS window, its lock; ARGV now, lock
 * id, lock ms, fresh ms (the TTL), longest value in bytes.
 *
 * The window, a hash of its value `v` and fetch time `at` on this clock, is
 * answered with its age. When it is missing or past its TTL, the caller
 * claims the fetch: the lock. The same claim asked again (same lock id) after
 * a late answer finds the lock its own. Answers {outcome, value or false, age
 * or -1}: `fresh`, `taken` or `held` (another holds the lock).
 *
 * The call the fetch makes is admitted apart (ADMIT_SCRIPT, the fleet's hold
 * and budget): those keys are the whole fleet's, in a hash slot of their own,
 * and a cluster runs no script across slots. Atomic enough: a claim whose call
 * the hold or the budget then keeps back lets go of its lock at once, and the
 * instances that saw it held, asking again, are kept back alike; no call is
 * made that both did not admit, and none is admitted twice.
 */
export const CLAIM_WINDOW_SCRIPT = script(`
local now = clock(ARGV[1])
local value, age = false, -1
if isHash(KEYS[1]) then
  local length = redis.call('HSTRLEN', KEYS[1], 'v')
  local at = tonumber(redis.call('HGET', KEYS[1], 'at'))
  if length > 0 and length <= tonumber(ARGV[5]) and at ~= nil and at == at then
    value = redis.call('HGET', KEYS[1], 'v')
    age = math.max(0, now - at)
  end
end
if value and age <= tonumber(ARGV[4]) then return {'fresh', value, age} end
if lock(KEYS[2], ARGV[2], ARGV[3]) then return {'taken', value, age} end
return {'held', value, age}`);

/**
 * Stores a window fetched `age` ms ago (by the writer's own clock: a
 * duration, which clocks agree on) for `keep` ms, and lets go of its lock if
 * it is still this id's. A window a purge dropped since the claim its fetch
 * followed (`seen`: its tombstone, purge-scripts.ts, marks a later purge) is
 * not stored, and neither is one with `seen` empty: only the lock is let go.
 * KEYS window, lock, tombstone; ARGV now, lock id (or ''), value, age ms,
 * keep ms, seen. Answers 1 when stored, 0 when not.
 */
export const PUBLISH_WINDOW_SCRIPT = script(`
local now = clock(ARGV[1])
local keep = tonumber(ARGV[5])
local stored = 0
local dropped = redis.call('TYPE', KEYS[3]).ok == 'string' and purgedAfter(redis.call('GET', KEYS[3]), ARGV[6])
if keep > 0 and ARGV[6] ~= '' and not dropped then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'v', ARGV[3], 'at', tostring(now - tonumber(ARGV[4])))
  redis.call('PEXPIRE', KEYS[1], keep)
  stored = 1
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return stored`);

/**
 * The fleet's token, or the claim on its renewal, in one round trip. KEYS
 * token, lock, refused; ARGV now, lock id, lock ms, longest value in bytes,
 * then the values not to take (refused by the upstream, or unusable).
 * Answers {'refused'} during the refused-credentials cool-down, {'token',
 * value, ms to its refresh point, ms to its expiry} while it needs no
 * renewal, else {'taken'} with the lock or {'held'} without.
 */
export const CLAIM_TOKEN_SCRIPT = script(`
local now = clock(ARGV[1])
if redis.call('EXISTS', KEYS[3]) == 1 then return {'refused'} end
if isHash(KEYS[1]) then
  local length = redis.call('HSTRLEN', KEYS[1], 'value')
  if length > 0 and length <= tonumber(ARGV[4]) then
    local token = redis.call('HMGET', KEYS[1], 'value', 'refreshAt', 'expiresAt')
    local refreshAt, expiresAt = tonumber(token[2]), tonumber(token[3])
    local usable = refreshAt ~= nil and expiresAt ~= nil and now < refreshAt and refreshAt <= expiresAt
    for i = 5, #ARGV do
      if ARGV[i] == token[1] then usable = false end
    end
    if usable then return {'token', token[1], refreshAt - now, expiresAt - now} end
  end
end
if lock(KEYS[2], ARGV[2], ARGV[3]) then return {'taken'} end
return {'held'}`);

/**
 * Stores the token the upstream has just issued, to be renewed in
 * `refreshIn` ms and gone in `expiresIn` ms, and lets go of the renewal lock
 * if it is still this id's. KEYS token, lock; ARGV now, lock id (or ''),
 * value, refresh in ms, expires in ms.
 */
export const PUBLISH_TOKEN_SCRIPT = script(`
local now = clock(ARGV[1])
local expiresIn = tonumber(ARGV[5])
if expiresIn > 0 then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'value', ARGV[3], 'refreshAt', tostring(now + tonumber(ARGV[4])), 'expiresAt', tostring(now + expiresIn))
  redis.call('PEXPIRE', KEYS[1], expiresIn)
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1`);

/** Deletes the token KEYS[1] only while it is still ARGV[2] (compare-and-delete): a newer one is kept. */
export const DROP_TOKEN_SCRIPT = script(`
if isHash(KEYS[1]) and redis.call('HGET', KEYS[1], 'value') == ARGV[2] then return redis.call('DEL', KEYS[1]) end
return 0`);

/** Holds the other instances back: KEYS hold; ARGV now, this instance's id, ms, rate limited ('1'). */
export const HOLD_SCRIPT = script(`
local now = clock(ARGV[1])
local ms = tonumber(ARGV[3])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'by', ARGV[2], 'until', tostring(now + ms), 'rateLimited', ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(ms)))
return 1`);

/**
 * The hold and the call budget for one upstream call no claim has admitted
 * (a token call, a retry), in one round trip. KEYS hold, budget; ARGV now,
 * this instance's id, longest hold ms, whether there is a budget ('1'), its
 * burst, tokens per ms, and the reserve to leave. Answers {'ok'},
 * {'hold', ms, rate limited} or {'budget', ms}.
 */
export const ADMIT_SCRIPT = script(`
local now = clock(ARGV[1])
local waitMs, rateLimited = held(KEYS[1], ARGV[2], tonumber(ARGV[3]), now)
if waitMs > 0 then return {'hold', waitMs, rateLimited} end
if ARGV[4] == '1' then
  local allowed, budgetWaitMs = take(KEYS[2], tonumber(ARGV[5]), tonumber(ARGV[6]), 1, tonumber(ARGV[7]), now)
  if allowed == 0 then return {'budget', budgetWaitMs} end
end
return {'ok'}`);

/**
 * Whether Redis serves the gateway: every command the scripts (and the
 * gateway outside them) use, on KEYS under the key prefix, then nothing left
 * behind. A missing permission, a read-only replica, or keys a cluster node
 * cannot take in one script (one node of a cluster named as if alone) make it
 * fail with Redis's own reason. Answers 1.
 */
export const CHECK_SCRIPT = script(`
clock(ARGV[1])
for i = 1, #KEYS do
  local key = KEYS[i]
  -- A write Redis refuses at its maxmemory comes first: once a script has written, Redis lets it go on.
  redis.call('SET', key, 'check', 'PX', 10000)
  redis.call('GET', key)
  redis.call('DEL', key)
  redis.call('HSET', key, 'v', 'check', 'at', '0')
  redis.call('PEXPIRE', key, 10000)
  redis.call('HGET', key, 'v')
  redis.call('HMGET', key, 'v', 'at')
  redis.call('HSTRLEN', key, 'v')
  redis.call('TYPE', key)
  redis.call('EXISTS', key)
  redis.call('DEL', key)
  redis.call('SET', key, 'check', 'NX', 'PX', 10000)
  redis.call('DEL', key)
  -- What the purges' scripts run (purge-scripts.ts); SPUBLISH is not among them: its channel is in another slot.
  redis.call('HINCRBY', key, 'n', 1)
  redis.call('PTTL', key)
  redis.call('UNLINK', key)
  redis.call('ZADD', key, 0, 'check')
  redis.call('ZRANGE', key, 0, -1)
  redis.call('ZSCORE', key, 'check')
  redis.call('ZREM', key, 'check')
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '+inf')
  redis.call('LPUSH', key, 'check')
  redis.call('LTRIM', key, 0, 0)
  redis.call('LRANGE', key, 0, -1)
  redis.call('DEL', key)
end
return 1`);

/** Every script, loaded into Redis each time the connection is (re)established. */
export const ALL_SCRIPTS: readonly LuaScript[] = [
  CHECK_SCRIPT,
  DELETE_IF_SCRIPT,
  BUCKET_SCRIPT,
  CLAIM_WINDOW_SCRIPT,
  PUBLISH_WINDOW_SCRIPT,
  CLAIM_TOKEN_SCRIPT,
  PUBLISH_TOKEN_SCRIPT,
  DROP_TOKEN_SCRIPT,
  HOLD_SCRIPT,
  ADMIT_SCRIPT,
];
