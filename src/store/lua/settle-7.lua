--[[
  Settles one request, atomically and exactly once: releases its reservation, charges its cost to the
  key's spent amount for the current period and to the account's balance, adds it to the key's daily
  usage counters, and keeps it in the key's list of recent requests, whose lifetime it starts again (so
  that the list of a key no longer used goes away by itself).

  The reservation record is the proof that the request is still to be settled: this script deletes it,
  so a settlement retried after its reply was lost (connection cut, Redis restarted) finds no record and
  changes nothing. A request whose reservation expired before it finished finds an 'expired' marker (the
  amount was already released) and is charged all the same.

  The cost may exceed what was reserved when the upstream produced more than the worst case allowed for;
  the spent amount and the balance then go past their limits by that difference rather than lose real usage.

  KEYS[1]  key record hash           {a:<account>}:key:<keyId>
  KEYS[2]  account hash              {a:<account>}:account
  KEYS[3]  reservation expiries zset {a:<account>}:resv
  KEYS[4]  reservation records hash  {a:<account>}:resv:rec
  KEYS[5]  reserved totals hash      {a:<account>}:reserved
  KEYS[6]  daily usage hash          {a:<account>}:usage:<keyId>:<YYYY-MM-DD>
  KEYS[7]  recent requests list      {a:<account>}:reqlog:<keyId>

  ARGV[1]  now (ms)
  ARGV[2]  start of the current day (ms)
  ARGV[3]  start of the current week (ms)
  ARGV[4]  start of the current month (ms)
  ARGV[5]  reservation id
  ARGV[6]  cost (µ₽, integer >= 0)
  ARGV[7]  prompt tokens
  ARGV[8]  completion tokens
  ARGV[9]  1 when the request failed (error status, upstream failure), else 0
  ARGV[10] 1 when the usage was estimated rather than reported, else 0
  ARGV[11] latency (ms, integer)
  ARGV[12] latency histogram field to count this request in, e.g. 'lat_le_250'
  ARGV[13] seconds to keep the daily usage hash
  ARGV[14] the request for the recent-requests list (JSON, without bodies)
  ARGV[15] the same with request and response bodies, or '' (used only while the key's log_bodies is on,
           so that switching it off stops storing bodies from that moment)
  ARGV[16] most recent requests kept per key (0: none)
  ARGV[17] milliseconds the recent-requests list is kept after its latest request

  Returns
    {'ok', balance, budget, spent, period}   budget is '' for a key without one
    {'duplicate'}                    no such reservation: this request was settled before

  Expired reservations are released by reserve, where they matter; this script runs once per request
  and makes as few calls as it can (each redis.call costs a few microseconds of Redis' time). The daily
  usage hash has no request counter: the latency histogram fields add up to it.
]]
--- @include "releaseReserved"
--- @include "rollOverPeriod"

local reservation = redis.call('HGET', KEYS[4], ARGV[5])
if not reservation then
  return { 'duplicate' }
end
local keyId, amount = string.match(reservation, '^(%S+) (%d+)$')
if keyId then releaseReserved(KEYS[5], keyId, amount) end
redis.call('HDEL', KEYS[4], ARGV[5])
redis.call('ZREM', KEYS[3], ARGV[5])

local record = redis.call('HMGET', KEYS[1], 'id', 'period', 'spent', 'period_start', 'budget', 'log_bodies')
local spent = 0
if record[1] then
  spent = rollOverPeriod(KEYS[1], record[2], record[3], record[4], { day = ARGV[2], week = ARGV[3], month = ARGV[4] })
end
local balance
if ARGV[6] ~= '0' then
  if record[1] then spent = redis.call('HINCRBY', KEYS[1], 'spent', ARGV[6]) end
  balance = redis.call('HINCRBY', KEYS[2], 'balance', '-' .. ARGV[6])
else
  balance = tonumber(redis.call('HGET', KEYS[2], 'balance') or '0')
end

-- The first request of the day creates the hash and gives it its lifetime.
if redis.call('HINCRBY', KEYS[6], ARGV[12], 1) == 1 and redis.call('HLEN', KEYS[6]) == 1 then
  redis.call('EXPIRE', KEYS[6], ARGV[13])
end
redis.call('HINCRBY', KEYS[6], 'latency_ms_sum', ARGV[11])
if ARGV[7] ~= '0' then redis.call('HINCRBY', KEYS[6], 'prompt_tokens', ARGV[7]) end
if ARGV[8] ~= '0' then redis.call('HINCRBY', KEYS[6], 'completion_tokens', ARGV[8]) end
if ARGV[6] ~= '0' then redis.call('HINCRBY', KEYS[6], 'cost', ARGV[6]) end
if ARGV[9] ~= '0' then redis.call('HINCRBY', KEYS[6], 'errors', ARGV[9]) end
if ARGV[10] ~= '0' then redis.call('HINCRBY', KEYS[6], 'estimated', ARGV[10]) end

if ARGV[16] ~= '0' then
  local entry = ARGV[14]
  if record[6] == '1' and ARGV[15] ~= '' then entry = ARGV[15] end
  redis.call('LPUSH', KEYS[7], entry)
  redis.call('LTRIM', KEYS[7], 0, tonumber(ARGV[16]) - 1)
  redis.call('PEXPIRE', KEYS[7], ARGV[17])
end

return { 'ok', balance, record[5] or '', spent, record[2] or 'month' }
