/**
 * @module The store's server-side scripts: every operation on a receipt is one Lua script on its
 * one key (`KEYS[1]`), so that Redis runs it atomically, and every timestamp is the server's
 * `TIME` read inside the script, so that app servers with skewed clocks agree on staleness.
 *
 * A receipt is a hash: `s` status, `a` attempts, `c` claimed at and `f` finished at (milliseconds
 * of the server clock), `r` response, `e` error, `g` fingerprint (absent: none), `t` the nonce of
 * the call that took the current claim, `w` the nonce of the call that settled it. The nonces make
 * a call that runs twice (a client that resends a command whose reply was lost to a dropped
 * connection) answer as its first run did, instead of losing its own claim.
 *
 * Adding an operation is adding one entry to {@link SCRIPTS}: its source (the prelude's helpers
 * are in scope) and the name the store runs it by. Every script but `recordFirst` works on one
 * key; `recordFirst` writes several at once, so on a Redis Cluster its keys must share a slot.
 */
import { createHash } from 'node:crypto';

/**
 * Helpers every script starts with. `now_ms` reads the server clock (`TIME`: seconds and
 * microseconds) in whole milliseconds; `view` answers a receipt as
 * `{flag, now, s, a, c, f, r, e, g}` (absent fields are nil); `int` writes a number as an integer
 * string (Lua's own conversion may use an exponent).
 */
const PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n) return string.format('%.0f', n) end
local function view(flag, now)
  local v = redis.call('HMGET', KEYS[1], 's', 'a', 'c', 'f', 'r', 'e', 'g')
  return {flag, int(now), v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
end
local function settle(status, field, value)
  redis.call('HSET', KEYS[1], 's', status, field, value, 'f', int(now_ms()), 'w', ARGV[5])
  if ARGV[4] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
  return 1
end
local function owned()
  local v = redis.call('HMGET', KEYS[1], 's', 'a', 'c', 'w')
  if not v[1] then return 0 end
  if v[4] == ARGV[5] then return 2 end
  if v[1] ~= 'processing' or tonumber(v[2]) ~= tonumber(ARGV[1]) then return 0 end
  if ARGV[2] ~= '' and tonumber(v[3]) ~= tonumber(ARGV[2]) then return 0 end
  return 1
end
`;

/**
 * claim(KEYS[1]; ARGV: fingerprint given '1'/'0', fingerprint, nonce): creates a `processing`
 * receipt with attempts 1 unless the key exists. Flag 1: won.
 */
const CLAIM = `
local now = now_ms()
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 't') == ARGV[3] then return view(1, now) end
  return view(0, now)
end
redis.call('HSET', KEYS[1], 's', 'processing', 'a', '1', 'c', int(now), 't', ARGV[3])
if ARGV[1] == '1' then redis.call('HSET', KEYS[1], 'g', ARGV[2]) end
return view(1, now)
`;

/**
 * reclaim(KEYS[1]; ARGV: attempts seen, staleAfterMs, fingerprint mode '-' keep / '0' none / '1'
 * set, fingerprint, nonce): takes over a `failed` receipt, or a `processing` one claimed at least
 * staleAfterMs ago, when its attempts still equal the ones seen. Nil when refused.
 */
const RECLAIM = `
local now = now_ms()
local v = redis.call('HMGET', KEYS[1], 's', 'a', 'c', 't')
if not v[1] then return false end
if v[4] == ARGV[5] then return view(1, now) end
if tonumber(v[2]) ~= tonumber(ARGV[1]) then return false end
if not (v[1] == 'failed' or (v[1] == 'processing' and tonumber(v[3]) <= now - tonumber(ARGV[2]))) then
  return false
end
redis.call('HSET', KEYS[1], 's', 'processing', 'a', int(tonumber(v[2]) + 1), 'c', int(now), 't', ARGV[5])
redis.call('HDEL', KEYS[1], 'f', 'e', 'r', 'w')
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'g', ARGV[4])
elseif ARGV[3] == '0' then redis.call('HDEL', KEYS[1], 'g') end
redis.call('PERSIST', KEYS[1])
return view(1, now)
`;

/**
 * complete(KEYS[1]; ARGV: attempts, claimedAt or '', response, retention ms or '', nonce):
 * `completed` when the claim is still the caller's. 1 when written (or written by this very call
 * before), 0 when refused.
 */
const COMPLETE = `
local own = owned()
if own ~= 1 then return own == 2 and 1 or 0 end
return settle('completed', 'r', ARGV[3])
`;

/** fail(KEYS[1]; ARGV as complete, the error text in place of the response). */
const FAIL = `
local own = owned()
if own ~= 1 then return own == 2 and 1 or 0 end
return settle('failed', 'e', ARGV[3])
`;

/** find(KEYS[1]): the receipt with the server's now, nil when none. */
const FIND = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return view(1, now_ms())
`;

/**
 * purgeOne(KEYS[1]; ARGV: olderThanMs): deletes the receipt when it is `completed` or `failed` and
 * finished at least olderThanMs ago; never a `processing` one. 1 when deleted.
 */
const PURGE_ONE = `
local v = redis.call('HMGET', KEYS[1], 's', 'f')
if not v[1] or v[1] == 'processing' or not v[2] then return 0 end
if tonumber(v[2]) > now_ms() - tonumber(ARGV[1]) then return 0 end
return redis.call('DEL', KEYS[1])
`;

/**
 * recordFirst(KEYS: one receipt each; ARGV: retention ms or '', nonce, then per key its response
 * and its handler milliseconds): a `completed` receipt (attempts 1, claimed the handler's time
 * before now, finished now) for every key, when none of them exists and none is named twice; else
 * nothing. 1 when written (or written by this very call before), 0 when refused.
 */
const RECORD_FIRST = `
local seen = {}
local mine = 0
for i = 1, #KEYS do
  if seen[KEYS[i]] then return 0 end
  seen[KEYS[i]] = true
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if redis.call('HGET', KEYS[i], 't') ~= ARGV[2] then return 0 end
    mine = mine + 1
  end
end
if mine == #KEYS then return 1 end
if mine > 0 then return 0 end
local now = now_ms()
for i = 1, #KEYS do
  local ms = tonumber(ARGV[2 + 2 * i])
  redis.call('HSET', KEYS[i], 's', 'completed', 'a', '1', 'c', int(now - ms), 'f', int(now),
    'r', ARGV[1 + 2 * i], 't', ARGV[2])
  if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return 1
`;

/** A script as the store runs it: by SHA-1 first (EVALSHA), by source when the server lacks it. */
export interface Script {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

function script(name: string, body: string): Script {
  const source = `${PRELUDE}${body}`;
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Every script of the store, by operation. */
export const SCRIPTS = {
  claim: script('claim', CLAIM),
  reclaim: script('reclaim', RECLAIM),
  complete: script('complete', COMPLETE),
  fail: script('fail', FAIL),
  find: script('find', FIND),
  purgeOne: script('purgeOne', PURGE_ONE),
  recordFirst: script('recordFirst', RECORD_FIRST),
} as const satisfies Record<string, Script>;
