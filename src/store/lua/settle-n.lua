--[[
  Settles requests of one account, atomically and each exactly once: releases its reservation, charges its
  cost to the key's spent amount for the current period and to the account's balance, adds it to the key's
  daily usage counters, and keeps it in the key's list of recent requests, whose lifetime it starts again
  (so that the list of a key no longer used goes away by itself).

  One call settles one request or several of the same account (the gateway batches those that finish close
  together, which saves Redis a command and the gateway a round trip per request); each is handled exactly
  as if it came alone, in the order given.

  The reservation record is the proof that a request is still to be settled: this script deletes it, so a
  settlement retried after its reply was lost (connection cut, Redis restarted) finds no record and changes
  nothing. That also covers a call that fails half-way (Redis does not roll back a script's writes): the
  settlements it completed answer 'duplicate' when retried, the rest are made then. A request whose
  reservation expired before it finished finds an 'expired' marker (the amount was already released) and is
  charged all the same.

  The cost exceeds what was reserved only when the gateway charges overage (billing.overage: charge); the
  spent amount and the balance then go past their limits by that difference.

  A key with a tokens-per-minute limit counted the request's worst case at admission; its settlement gives
  back what the request did not use (or takes what it used beyond), so that a minute's allowance is freed by
  requests that used less than they could have.

  A charge that takes the key's spent amount to one of its budget thresholds, or the balance below its
  low-balance mark or to zero, emits the alert event in this same script (budgetAlerts.lua,
  balanceAlerts.lua), so that it happens exactly once too.

  KEYS[1]  account hash              {a:<account>}:account
  KEYS[2]  reservation expiries zset {a:<account>}:resv
  KEYS[3]  reservation records hash  {a:<account>}:resv:rec
  KEYS[4]  reserved totals hash      {a:<account>}:reserved
  then three keys for each settlement, from KEYS[5 + 3i] for the i-th (from 0):
    +0  key record hash              {a:<account>}:key:<keyId>
    +1  daily usage hash             {a:<account>}:usage:<keyId>:<YYYY-MM-DD>
    +2  recent requests list         {a:<account>}:reqlog:<keyId>
  and last, after the settlements' keys:
  KEYS[#KEYS]  the account's event stream   {a:<account>}:events

  ARGV[1]  seconds to keep a daily usage hash
  ARGV[2]  most recent requests kept per key (0: none)
  ARGV[3]  milliseconds a recent-requests list is kept after its latest request
  then 14 arguments for each settlement, from ARGV[4 + 14i] for the i-th:
    +0  start of the current day (ms)
    +1  start of the current week (ms)
    +2  start of the current month (ms)
    +3  reservation id
    +4  cost (µ₽, integer >= 0)
    +5  prompt tokens
    +6  completion tokens
    +7  1 when the request failed (error status, upstream failure), else 0
    +8  1 when the usage was estimated rather than reported, else 0
    +9  latency (ms, integer)
    +10 latency histogram field to count this request in, e.g. 'lat_le_250'
    +11 the request for the recent-requests list (JSON, without bodies)
    +12 the same with request and response bodies, or '' (used only while the key's log_bodies is on, so
        that switching it off stops storing bodies from that moment)
    +13 now (ms), for the tokens-per-minute correction
  and last, after the settlements' arguments:
  ARGV[#ARGV]  the event context (JSON, see emitEvent.lua)

  Returns one reply per settlement, in order:
    {'ok', balance, budget, spent, period, events}
                                             budget is '' for a key without one; events the number of alert
                                             events this settlement emitted
    {'duplicate'}                            no such reservation: this request was settled before

  Expired reservations are released by reserve, where they matter; this script makes as few calls per
  request as it can (each redis.call costs a few microseconds of Redis' time). The daily usage hash has no
  request counter: the latency histogram fields add up to it.
]]
--- @include "releaseReserved"
--- @include "rollOverPeriod"
--- @include "gcra"
--- @include "budgetAlerts"
--- @include "balanceAlerts"

local count = (#KEYS - 5) / 3
if count < 1 or count % 1 ~= 0 or #ARGV ~= 4 + 14 * count then
  return redis.error_reply('settle: ' .. #KEYS .. ' keys and ' .. #ARGV .. ' arguments do not make whole settlements')
end
local usageTtl, logKeep, logTtl = ARGV[1], ARGV[2], ARGV[3]
local streamKey, events = KEYS[#KEYS], readEventContext(ARGV[#ARGV])

local function settle(keyKey, usageKey, logKey, a)
  local reservation = redis.call('HGET', KEYS[3], ARGV[a + 3])
  if not reservation then
    return { 'duplicate' }
  end
  local keyId, amount, reservedTokens, reservedTpm, inFlight = parseReservation(reservation)
  if keyId then releaseReserved(KEYS[4], keyId, amount, inFlight) end
  redis.call('HDEL', KEYS[3], ARGV[a + 3])
  redis.call('ZREM', KEYS[2], ARGV[a + 3])

  local cost = ARGV[a + 4]
  local record = redis.call('HMGET', keyKey, 'id', 'period', 'spent', 'period_start', 'budget', 'log_bodies', 'tpm', 'tpm_tat')
  local spent = 0
  if record[1] then
    spent = rollOverPeriod(keyKey, record[2], record[3], record[4], { day = ARGV[a], week = ARGV[a + 1], month = ARGV[a + 2] })
    -- Only a live reservation's tokens are corrected (an expired one's count stands), and only while the key
    -- still has the limit they were counted against: a changed limit started its allowance afresh.
    local used = tonumber(ARGV[a + 5]) + tonumber(ARGV[a + 6])
    if reservedTokens and record[7] == reservedTpm and record[8] and tonumber(reservedTokens) ~= used then
      local ms, rem = string.match(record[8], '^(%d+) (%d+)$')
      local newMs, newRem = gcraRefund(tonumber(ms), tonumber(rem), tonumber(ARGV[a + 13]), tonumber(record[7]), tonumber(reservedTokens) - used)
      redis.call('HSET', keyKey, 'tpm_tat', newMs .. ' ' .. newRem)
    end
  end
  local balance
  if cost ~= '0' then
    if record[1] then spent = redis.call('HINCRBY', keyKey, 'spent', cost) end
    balance = redis.call('HINCRBY', KEYS[1], 'balance', '-' .. cost)
  else
    balance = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
  end

  -- The first request of the day creates the hash and gives it its lifetime.
  if redis.call('HINCRBY', usageKey, ARGV[a + 10], 1) == 1 and redis.call('HLEN', usageKey) == 1 then
    redis.call('EXPIRE', usageKey, usageTtl)
  end
  redis.call('HINCRBY', usageKey, 'latency_ms_sum', ARGV[a + 9])
  if ARGV[a + 5] ~= '0' then redis.call('HINCRBY', usageKey, 'prompt_tokens', ARGV[a + 5]) end
  if ARGV[a + 6] ~= '0' then redis.call('HINCRBY', usageKey, 'completion_tokens', ARGV[a + 6]) end
  if cost ~= '0' then redis.call('HINCRBY', usageKey, 'cost', cost) end
  if ARGV[a + 7] ~= '0' then redis.call('HINCRBY', usageKey, 'errors', ARGV[a + 7]) end
  if ARGV[a + 8] ~= '0' then redis.call('HINCRBY', usageKey, 'estimated', ARGV[a + 8]) end

  if logKeep ~= '0' then
    local entry = ARGV[a + 11]
    if record[6] == '1' and ARGV[a + 12] ~= '' then entry = ARGV[a + 12] end
    redis.call('LPUSH', logKey, entry)
    redis.call('LTRIM', logKey, 0, tonumber(logKeep) - 1)
    redis.call('PEXPIRE', logKey, logTtl)
  end

  local emitted = 0
  if cost ~= '0' then
    if record[1] then emitted = budgetAlerts(keyKey, streamKey, events) end
    emitted = emitted + balanceAlerts(KEYS[1], streamKey, events)
  end

  return { 'ok', balance, record[5] or '', spent, record[2] or 'month', emitted }
end

local replies = {}
for i = 0, count - 1 do
  replies[i + 1] = settle(KEYS[5 + 3 * i], KEYS[6 + 3 * i], KEYS[7 + 3 * i], 4 + 14 * i)
end
return replies
