--[[
  Authorises one forwarded request and reserves its worst-case cost, atomically, so that requests running
  in parallel — on one replica or many — can never together spend more than a key's budget or an
  account's balance, nor pass the key's rate and concurrency limits.

  1. Refuses a key that is missing, revoked, expired, disabled, or presented with a value it no longer has
     (rotated: only the current value, and the previous one until its grace period ends, are accepted); and
     a model outside the key's list (or a body whose model is unknown, for a key with a list).
  2. Releases reservations of the account that expired unsettled.
  3. Checks the key's limits, without counting anything yet: requests per minute and tokens per minute (the
     request's worst case, at most the whole allowance) by GCRA, and requests in flight against max_parallel.
  4. Brings every budget window of the key and of its account into its current period (budgetWindows.lua);
     refuses when one of them is used up or cannot cover its spent amount + what is reserved (for the key,
     or for the whole account) + this request's worst case, naming that window.
  5. Refuses when the account's balance limits it (every account but a budgeted one with a window) and the
     balance is not positive or cannot cover what is reserved + this worst case.
  6. Counts the request against its limits, records the reservation under its id with an expiry, and holds
     the amount and a request in flight on the key (the amount on the account too). The record is what makes
     settlement exactly-once: settle deletes it, and a settlement that finds no record has already been made.

  KEYS[1]  key record hash           {a:<account>}:key:<keyId>
  KEYS[2]  account hash              {a:<account>}:account
  KEYS[3]  reservation expiries zset {a:<account>}:resv
  KEYS[4]  reservation records hash  {a:<account>}:resv:rec
  KEYS[5]  reserved totals hash      {a:<account>}:reserved

  ARGV[1]  now (ms)
  ARGV[2]  start of the current day (ms)
  ARGV[3]  start of the current week (ms)
  ARGV[4]  start of the current month (ms)
  ARGV[5]  reservation id (unique per request)
  ARGV[6]  amount to reserve (µ₽, integer >= 0)
  ARGV[7]  reservation expiry (ms)
  ARGV[8]  model check: 'none' (no body), 'unknown' (a body without a model) or 'named'
  ARGV[9]  the model, when ARGV[8] is 'named'
  ARGV[10] most expired reservations to release in this call
  ARGV[11] how long a reservation that expired unsettled is remembered (ms)
  ARGV[12] SHA-256 of the key value the request presented
  ARGV[13] the request's worst case in tokens (prompt + completion), for the tokens-per-minute limit

  Returns, with `expired` the number of reservations released in step 2:
    {'ok', expired, name, logBodies, models, budget, spent, keyReserved, balance, accountReserved,
       rpm, rpmRemaining, rpmResetMs, tpm, tpmRemaining, tpmResetMs, maxParallel, inFlight}
      models is the JSON list or ''; budget and spent are the key's first window's (budget '' for a key
      without one); amounts in µ₽ after reserving;
      a limit the key does not have is '' (its remaining and reset too)
    {'invalid_api_key', expired}   the record is missing (the mapping outlived it)
    {'key_revoked', expired} | {'key_expired', expired} | {'key_rotated', expired} | {'key_disabled', expired}
    {'model_not_allowed', expired, models}
    {'rate_limit_exceeded', expired, 'rpm'|'tpm', limit, waitMs}
    {'concurrency_limit_exceeded', expired, maxParallel, inFlight}
    {'budget_exceeded', expired, budget, spent, reserved, period, scope}
                                   the window that refused: scope 'key' or 'account', its period, budget
                                   and spent amount, and what is reserved for the key or the account
    {'insufficient_balance', expired, balance, accountReserved}
]]
--- @include "purgeExpiredReservations"
--- @include "budgetWindows"
--- @include "gcra"

local now = tonumber(ARGV[1])
local record = redis.call('HMGET', KEYS[1],
  'id', 'name', 'log_bodies', 'models', 'budget', 'expires_at', 'revoked_at', 'period', 'spent', 'period_start',
  'disabled_at', 'hash', 'previous_hash', 'previous_until',
  'rpm', 'rpm_tat', 'tpm', 'tpm_tat', 'max_parallel')
local keyId, name, logBodies, models, expiresAt, revokedAt =
  record[1], record[2], record[3], record[4], record[6], record[7]

if not keyId then return { 'invalid_api_key', 0 } end
if revokedAt then return { 'key_revoked', 0 } end
if expiresAt and now >= tonumber(expiresAt) then return { 'key_expired', 0 } end
-- A key without a recorded hash predates rotation: every value that maps to it is its own.
local hash, previousHash, previousUntil = record[12], record[13], record[14]
if hash and hash ~= ARGV[12] then
  local inGrace = previousUntil and now < tonumber(previousUntil)
  if not (inGrace and (previousHash == ARGV[12] or previousHash == '*')) then return { 'key_rotated', 0 } end
end
if record[11] then return { 'key_disabled', 0 } end

if models and ARGV[8] ~= 'none' then
  local allowed = false
  if ARGV[8] == 'named' then
    for _, model in ipairs(cjson.decode(models)) do
      if model == ARGV[9] then allowed = true break end
    end
  end
  if not allowed then return { 'model_not_allowed', 0, models } end
end

local expired = purgeExpiredReservations(KEYS[3], KEYS[4], KEYS[5], ARGV[1], tonumber(ARGV[11]), tonumber(ARGV[10]))

local rpm, tpm, maxParallel = tonumber(record[15]), tonumber(record[17]), tonumber(record[19])
local tokens = tonumber(ARGV[13])
local rpmMs, rpmRem, tpmMs, tpmRem
if rpm then
  local ms, rem = string.match(record[16] or '0 0', '^(%d+) (%d+)$')
  local ok, a, b = gcraAdmit(tonumber(ms), tonumber(rem), now, rpm, 1)
  if not ok then return { 'rate_limit_exceeded', expired, 'rpm', rpm, a } end
  rpmMs, rpmRem = a, b
end
-- A worst case above the whole allowance is counted as the whole allowance: such a request waits for a full
-- minute's tokens rather than never being admitted, and its settlement takes what it really used.
local tpmCost = tpm and math.min(tokens, tpm)
if tpm then
  local ms, rem = string.match(record[18] or '0 0', '^(%d+) (%d+)$')
  local ok, a, b = gcraAdmit(tonumber(ms), tonumber(rem), now, tpm, tpmCost)
  if not ok then return { 'rate_limit_exceeded', expired, 'tpm', tpm, a } end
  tpmMs, tpmRem = a, b
end
local reserved = redis.call('HMGET', KEYS[5], keyId, '*', keyId .. '#n')
local inFlight = math.max(0, tonumber(reserved[3] or '0'))
if maxParallel and inFlight >= maxParallel then
  return { 'concurrency_limit_exceeded', expired, maxParallel, inFlight }
end

local starts = { day = ARGV[2], week = ARGV[3], month = ARGV[4] }
local keyWindows = readWindows(KEYS[1], starts, true)
local accountWindows, account = readWindows(KEYS[2], starts, false, { 'balance', 'billing' })
local amount = tonumber(ARGV[6])
local keyReserved = tonumber(reserved[1] or '0')
local accountReserved = tonumber(reserved[2] or '0')
local refusing = refusingWindow(keyWindows, keyReserved, amount)
if refusing then
  return { 'budget_exceeded', expired, refusing.budget, refusing.spent, keyReserved, refusing.period, 'key' }
end
refusing = refusingWindow(accountWindows, accountReserved, amount)
if refusing then
  return { 'budget_exceeded', expired, refusing.budget, refusing.spent, accountReserved, refusing.period, 'account' }
end

local balance = tonumber(account[1] or '0')
if balanceRequired(account[2], accountWindows) and (balance <= 0 or (amount > 0 and balance - accountReserved < amount)) then
  return { 'insufficient_balance', expired, balance, accountReserved }
end

local rpmRemaining, rpmReset, tpmRemaining, tpmReset = '', '', '', ''
if rpm then
  redis.call('HSET', KEYS[1], 'rpm_tat', rpmMs .. ' ' .. rpmRem)
  rpmRemaining, rpmReset = gcraRemaining(rpmMs, rpmRem, now, rpm)
end
if tpm then
  redis.call('HSET', KEYS[1], 'tpm_tat', tpmMs .. ' ' .. tpmRem)
  tpmRemaining, tpmReset = gcraRemaining(tpmMs, tpmRem, now, tpm)
end
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[5])
redis.call('HSET', KEYS[4], ARGV[5], keyId .. ' ' .. ARGV[6] .. ' ' .. (tpm and (tpmCost .. ':' .. record[17]) or '-'))
inFlight = redis.call('HINCRBY', KEYS[5], keyId .. '#n', 1)
if amount > 0 then
  keyReserved = redis.call('HINCRBY', KEYS[5], keyId, ARGV[6])
  accountReserved = redis.call('HINCRBY', KEYS[5], '*', ARGV[6])
end

local first = keyWindows[1]
return { 'ok', expired, name, logBodies, models or '', first.budget or '', first.spent, keyReserved, balance, accountReserved,
  record[15] or '', rpmRemaining, rpmReset, record[17] or '', tpmRemaining, tpmReset, record[19] or '', inFlight }
