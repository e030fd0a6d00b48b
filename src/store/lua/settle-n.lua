--[[
  Settles requests of one account, atomically and each exactly once: releases its reservation, charges its
  cost to the spent amount of every budget window of the key and of the account, each once, in its current
  period (budgetWindows.lua), and to the account's balance (unless the account is budgeted: then its windows
  alone limit it and the balance is left as it is), adds it to the key's
  daily usage counters (in all, and by model) and to the account's counters of the month, and keeps it in
  the key's list of recent requests, whose lifetime it starts again (so that the list of a key no longer used
  goes away by itself).

  One call settles one request or several of the same account (the gateway batches those that finish close
  together, which saves Redis a command and the gateway a round trip per request); each is handled exactly
  as if it came alone, in the order given.

  Every settlement writes a marker into the replica's settlement hash: its reservation id, or for a leased
  request the marker its lease hold names, written right after the charge. The marker, not the reservation
  record, is the proof that a settlement was made: one that finds its marker is a 'duplicate' and changes
  nothing, however it is sent again — after a reply lost on a cut connection, after a call that failed
  half-way (Redis does not roll back a script's writes: a settlement that failed before its charge has no
  marker and fails again, or is made, when retried; one that failed after it answers 'duplicate'), or after a
  failover, when the gateway sends again what no replica acknowledged (WAIT): a settlement the promoted
  master never received finds no marker there and is made there. The marker and the charge are written by the
  same script, so they reach a replica together or not at all. The replica acknowledges the
  markers of settlements it is done with in a later call, which deletes them, so that the hash holds only
  markers whose settlement is not yet done (and expires with a replica that died).

  A request's reservation is released when it is found. One that expired before the request finished has
  left an 'expired' record (its amount was already released): the request is charged all the same. One that
  is not there at all — lost in a failover, or forgotten after billing.lateSettlementSeconds — is charged all
  the same too, with nothing to release ('vanished' in the reply), since the request did run and its marker
  says it was not charged; unless it costs nothing: a release whose reservation does not exist (its reserve
  call's reply was lost, and the call may never have run) has nothing to release or charge, and answers
  'none' without writing the request anywhere.

  A settlement found a duplicate still writes (the hash's expiry is set again): WAIT counts the writes of the
  connection that made them, so a settlement sent again on a new connection must write for a WAIT after it to
  cover its first attempt.

  The replica's settlement hash also keeps its ledger: the field '=charged' counts every micro-ruble its
  settlements charged, in the same script as the charge. What the replica charged by its own count and this
  field are compared by the gateway (billing/books-watch.ts): a charge lost in a failover that a replica had
  acknowledged shows there.

  The cost exceeds what was reserved only when the gateway charges overage (billing.overage: charge); the
  spent amounts and the balance then go past their limits by that difference.

  A key with a tokens-per-minute limit counted the request's worst case at admission; its settlement gives
  back what the request did not use (or takes what it used beyond), so that a minute's allowance is freed by
  requests that used less than they could have.

  A request admitted on a replica's admission lease (lease-5.lua) has no reservation record: its settlement
  names the lease and the hold the request took from it, and its marker. The hold leaves the lease and, when
  the lease is live and the replica asks for it, goes back in as far as what is then free allows (the same
  share as lease-5.lua grants): a lease that far from the limits stays the same size however many requests
  it serves, and one near them shrinks.

  A charge that takes a window's spent amount (the key's or the account's) to one of its budget thresholds,
  or the balance below its
  low-balance mark or to zero, emits the alert event in this same script (budgetAlerts.lua,
  balanceAlerts.lua), so that it happens exactly once too.

  KEYS[1]  account hash              {a:<account>}:account
  KEYS[2]  reservation expiries zset {a:<account>}:resv
  KEYS[3]  reservation records hash  {a:<account>}:resv:rec
  KEYS[4]  reserved totals hash      {a:<account>}:reserved
  KEYS[5]  the replica's settlement hash  {a:<account>}:settled:<replica>: marker -> 1 for each settlement not
           yet acknowledged, and '=charged' -> µ₽ its settlements charged
  then four keys for each settlement, from KEYS[6 + 4i] for the i-th (from 0):
    +0  key record hash              {a:<account>}:key:<keyId>
    +1  daily usage hash             {a:<account>}:usage:<keyId>:<YYYY-MM-DD>
    +2  recent requests list         {a:<account>}:reqlog:<keyId>
    +3  the account's month hash     {a:<account>}:month:<YYYY-MM>  (requests, cost: what the operator's
                                     view of all accounts reads, one hash per account)
  and last, after the settlements' keys:
  KEYS[#KEYS]  the account's event stream   {a:<account>}:events

  ARGV[1]  seconds to keep a daily usage hash
  ARGV[2]  most recent requests kept per key (0: none)
  ARGV[3]  milliseconds a recent-requests list is kept after its latest request
  ARGV[4]  milliseconds the settlement hash is kept after the replica's latest settlement
           (billing.lateSettlementSeconds: how late a settlement may be sent again and still be made once)
  ARGV[5]  markers of settlements the replica is done with, separated by spaces ('' for none): deleted
           after the call's settlements are made
  then 17 arguments for each settlement, from ARGV[6 + 17i] for the i-th:
    +0  start of the current day (ms)
    +1  start of the current week (ms)
    +2  start of the current month (ms)
    +3  reservation id (the settlement's marker, unless it is leased)
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
    +14 '' for a request with a reservation record, or for a leased request "<leaseId> <hold> <marker>
        <share>": its lease, the amount it took from it (µ₽), its marker, and the share of what is available its
        hold may go back into the lease with (0: none, the replica is giving the lease up)
    +15 the request's model ('' for a request without one)
    +16 of the prompt tokens, those served from the model server's cache (counted as cached_tokens)
  and last, after the settlements' arguments:
  ARGV[#ARGV]  the event context (JSON, see emitEvent.lua)

  Returns one reply per settlement, in order:
    {'ok', balance, budget, spent, period, events, leaseDelta, leaseState, keyWindows, accountWindows,
       reservation}
                                             budget, spent and period are the key's first window's (budget ''
                                             for a key without one); events the number of alert events this
                                             settlement emitted; for a leased request, how much its lease
                                             changed (µ₽, <= 0) and 'live', or 'gone' when the lease no longer
                                             exists (it expired, or was given up), both '' for a request with a
                                             reservation record; the windows as "<period>:<budget>:<spent>"
                                             separated by spaces ('' for none); reservation 'vanished' when
                                             the request was charged without finding its reservation, else ''
    {'duplicate'}                            its marker is there: this request was settled before
    {'none'}                                 a release (cost 0) whose reservation does not exist: nothing
                                             to settle

  Expired reservations are released by reserve, where they matter; this script makes as few calls per
  request as it can (each redis.call costs a few microseconds of Redis' time). The daily usage hash has no
  request counter: the latency histogram fields add up to it.

  By model, the daily usage hash counts m:<model>:requests, m:<model>:cost, m:<model>:prompt_tokens,
  m:<model>:completion_tokens and m:<model>:cached_tokens (the model may itself contain ':'; the counter is
  after the last one); a
  request that named no model is not counted by model, since the totals less the models' counters give it. Model
  names come from callers, so a model is counted by name only while its five counters fit in
  MAX_USAGE_FIELDS fields; one first seen when the hash is that full is counted under mx:requests, mx:cost,
  ... ("other models") instead, so that a hash never holds more than MAX_USAGE_FIELDS + 5 fields.
]]
--- @include "releaseReserved"
--- @include "budgetWindows"
--- @include "gcra"
--- @include "budgetAlerts"
--- @include "balanceAlerts"
--- @include "resizeLease"

local MAX_USAGE_FIELDS = 256
local count = (#KEYS - 6) / 4
if count < 1 or count % 1 ~= 0 or #ARGV ~= 6 + 17 * count then
  return redis.error_reply('settle: ' .. #KEYS .. ' keys and ' .. #ARGV .. ' arguments do not make whole settlements')
end
local usageTtl, logKeep, logTtl = ARGV[1], ARGV[2], ARGV[3]
local streamKey, events = KEYS[#KEYS], readEventContext(ARGV[#ARGV])
local markersKey, LEDGER = KEYS[5], '=charged'

local function settle(keyKey, usageKey, logKey, monthKey, a)
  local reservedTokens, reservedTpm
  local leaseId, hold, share, leaseKeyId, leaseAmount
  local marker, vanished = ARGV[a + 3], ''
  if ARGV[a + 14] ~= '' then
    leaseId, hold, marker, share = string.match(ARGV[a + 14], '^(%S+) (%d+) (%S+) (%d+)$')
    if not leaseId then return redis.error_reply('settle: malformed lease ' .. ARGV[a + 14]) end
  end
  if redis.call('HEXISTS', markersKey, marker) == 1 then
    return { 'duplicate' }
  end
  if not leaseId then
    local reservation = redis.call('HGET', KEYS[3], ARGV[a + 3])
    if reservation then
      local keyId, amount, tokens, tpm, inFlight = parseReservation(reservation)
      reservedTokens, reservedTpm = tokens, tpm
      if keyId then releaseReserved(KEYS[4], keyId, amount, inFlight) end
      redis.call('HDEL', KEYS[3], ARGV[a + 3])
      redis.call('ZREM', KEYS[2], ARGV[a + 3])
    elseif ARGV[a + 4] == '0' then
      redis.call('HSET', markersKey, marker, '1')
      return { 'none' }
    else
      vanished = 'vanished'
    end
  else
    local keyId, amount, _, _, _, isLease = parseReservation(redis.call('HGET', KEYS[3], leaseId))
    if isLease then leaseKeyId, leaseAmount = keyId, tonumber(amount) end
  end

  local cost = ARGV[a + 4]
  local record = redis.call('HMGET', keyKey, 'id', 'log_bodies', 'tpm', 'tpm_tat')
  local starts = { day = ARGV[a], week = ARGV[a + 1], month = ARGV[a + 2] }
  local keyWindows = {}
  if record[1] then
    keyWindows = readWindows(keyKey, starts, true)
    -- Only a live reservation's tokens are corrected (an expired one's count stands), and only while the key
    -- still has the limit they were counted against: a changed limit started its allowance afresh.
    local used = tonumber(ARGV[a + 5]) + tonumber(ARGV[a + 6])
    if reservedTokens and record[3] == reservedTpm and record[4] and tonumber(reservedTokens) ~= used then
      local ms, rem = string.match(record[4], '^(%d+) (%d+)$')
      local newMs, newRem = gcraRefund(tonumber(ms), tonumber(rem), tonumber(ARGV[a + 13]), tonumber(record[3]), tonumber(reservedTokens) - used)
      redis.call('HSET', keyKey, 'tpm_tat', newMs .. ' ' .. newRem)
    end
  end
  local accountWindows, account = readWindows(KEYS[1], starts, false, { 'balance', 'billing' })
  local chargesBalance = balanceRequired(account[2], accountWindows)
  local balance = tonumber(account[1] or '0')
  if cost ~= '0' then
    chargeWindows(keyKey, keyWindows, cost)
    chargeWindows(KEYS[1], accountWindows, cost)
    if chargesBalance then balance = redis.call('HINCRBY', KEYS[1], 'balance', '-' .. cost) end
    redis.call('HINCRBY', markersKey, LEDGER, cost)
  end
  redis.call('HSET', markersKey, marker, '1')
  local first = keyWindows[1] or {}
  local spent = first.spent or 0

  -- The first request of the day creates the hash and gives it its lifetime.
  if redis.call('HINCRBY', usageKey, ARGV[a + 10], 1) == 1 and redis.call('HLEN', usageKey) == 1 then
    redis.call('EXPIRE', usageKey, usageTtl)
  end
  redis.call('HINCRBY', usageKey, 'latency_ms_sum', ARGV[a + 9])
  if ARGV[a + 5] ~= '0' then redis.call('HINCRBY', usageKey, 'prompt_tokens', ARGV[a + 5]) end
  if ARGV[a + 6] ~= '0' then redis.call('HINCRBY', usageKey, 'completion_tokens', ARGV[a + 6]) end
  if ARGV[a + 16] ~= '0' then redis.call('HINCRBY', usageKey, 'cached_tokens', ARGV[a + 16]) end
  if cost ~= '0' then redis.call('HINCRBY', usageKey, 'cost', cost) end
  if ARGV[a + 7] ~= '0' then redis.call('HINCRBY', usageKey, 'errors', ARGV[a + 7]) end
  if ARGV[a + 8] ~= '0' then redis.call('HINCRBY', usageKey, 'estimated', ARGV[a + 8]) end
  if ARGV[a + 15] ~= '' then
    local model = 'm:' .. ARGV[a + 15] .. ':'
    if redis.call('HINCRBY', usageKey, model .. 'requests', 1) == 1
        and redis.call('HLEN', usageKey) + 4 > MAX_USAGE_FIELDS then
      redis.call('HDEL', usageKey, model .. 'requests')
      model = 'mx:'
      redis.call('HINCRBY', usageKey, model .. 'requests', 1)
    end
    if ARGV[a + 5] ~= '0' then redis.call('HINCRBY', usageKey, model .. 'prompt_tokens', ARGV[a + 5]) end
    if ARGV[a + 6] ~= '0' then redis.call('HINCRBY', usageKey, model .. 'completion_tokens', ARGV[a + 6]) end
    if ARGV[a + 16] ~= '0' then redis.call('HINCRBY', usageKey, model .. 'cached_tokens', ARGV[a + 16]) end
    if cost ~= '0' then redis.call('HINCRBY', usageKey, model .. 'cost', cost) end
  end
  if redis.call('HINCRBY', monthKey, 'requests', 1) == 1 then redis.call('EXPIRE', monthKey, usageTtl) end
  if cost ~= '0' then redis.call('HINCRBY', monthKey, 'cost', cost) end

  if logKeep ~= '0' then
    local entry = ARGV[a + 11]
    if record[2] == '1' and ARGV[a + 12] ~= '' then entry = ARGV[a + 12] end
    redis.call('LPUSH', logKey, entry)
    redis.call('LTRIM', logKey, 0, tonumber(logKeep) - 1)
    redis.call('PEXPIRE', logKey, logTtl)
  end

  local emitted = 0
  if cost ~= '0' then
    emitted = budgetAlerts(keyKey, streamKey, events, keyWindows, 'key')
      + budgetAlerts(KEYS[1], streamKey, events, accountWindows, 'account')
    if chargesBalance then emitted = emitted + balanceAlerts(KEYS[1], streamKey, events) end
  end

  local budget, period = first.budget and string.format('%d', first.budget) or '', first.period or 'month'
  local keyReply, accountReply = windowsReply(keyWindows), windowsReply(accountWindows)
  if not leaseId then
    return { 'ok', balance, budget, spent, period, emitted, '', '', keyReply, accountReply, vanished }
  end
  if not leaseKeyId then
    return { 'ok', balance, budget, spent, period, emitted, '0', 'gone', keyReply, accountReply, '' }
  end
  local released = math.min(tonumber(hold), leaseAmount)
  local kept = 0
  if share ~= '0' then
    -- Back in as far as the lease stays within its cap (lease-5.lua), never above what it was.
    local reserved = redis.call('HMGET', KEYS[4], leaseKeyId, '*')
    local rest = leaseAmount - released
    local free = freeToReserve(chargesBalance and tonumber(balance) or nil, tonumber(reserved[2] or '0') - released,
      keyWindows, tonumber(reserved[1] or '0') - released, accountWindows)
    kept = math.max(0, math.min(released, leaseCap(free + rest, tonumber(share)) - rest))
  end
  resizeLease(KEYS[2], KEYS[3], KEYS[4], leaseId, leaseKeyId, leaseAmount, leaseAmount - released + kept, nil)
  return { 'ok', balance, budget, spent, period, emitted, string.format('%d', kept - released), 'live', keyReply,
    accountReply, '' }
end

local replies = {}
for i = 0, count - 1 do
  replies[i + 1] = settle(KEYS[6 + 4 * i], KEYS[7 + 4 * i], KEYS[8 + 4 * i], KEYS[9 + 4 * i], 6 + 17 * i)
end
-- After the settlements, so that one sent again in the call that acknowledges it is still a duplicate.
if ARGV[5] ~= '' then
  for marker in string.gmatch(ARGV[5], '%S+') do redis.call('HDEL', markersKey, marker) end
end
-- Every call writes here: a duplicate too, for WAIT (see above).
redis.call('PEXPIRE', markersKey, ARGV[4])
return replies
