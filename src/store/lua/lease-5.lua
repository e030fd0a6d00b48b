--[[
  Sets a replica's admission lease on a key: an amount of the key's budget windows, the account's windows and
  the account's balance (where it limits the account) that
  the replica may hand out to requests with local arithmetic only, without a Redis round trip before
  forwarding. The lease is a reservation record like a request's ("<keyId> <amount> L"), so every other
  replica's reserve and lease see it as reserved, and it expires by itself if the replica dies (its expiry
  is moved forward each time the replica calls this script, which it does every few seconds while it uses
  the lease).

  A lease shrinks to any amount asked for (0 deletes it): that is how a replica gives back what it does not
  use. It grows only for a key that is usable and has no rate or concurrency limits (those are checked per
  request, in reserve), and only up to a share — 1/ARGV[10] — of what every window of the key and of the
  account, and the balance, would leave without it: a replica never holds more than that share of what is available to it, however often
  it asks, so the others always find some left, and near a limit the lease becomes too small to cover a
  request and the replica falls back to reserving request by request.

  Leased requests are settled by settle-n.lua, which takes each request's hold out of the lease (and may put
  it back: see there).

  KEYS[1]  key record hash           {a:<account>}:key:<keyId>
  KEYS[2]  account hash              {a:<account>}:account
  KEYS[3]  reservation expiries zset {a:<account>}:resv
  KEYS[4]  reservation records hash  {a:<account>}:resv:rec
  KEYS[5]  reserved totals hash      {a:<account>}:reserved

  ARGV[1]  now (ms)
  ARGV[2]  start of the current day (ms)
  ARGV[3]  start of the current week (ms)
  ARGV[4]  start of the current month (ms)
  ARGV[5]  lease id ("lease:<replica>:<keyId>:<generation>")
  ARGV[6]  amount asked for (µ₽, integer >= 0)
  ARGV[7]  the lease's new expiry (ms)
  ARGV[8]  most expired reservations to release in this call
  ARGV[9]  how long a reservation that expired unsettled is remembered (ms)
  ARGV[10] the share of what is available the lease may hold (2: at most half)
  ARGV[11] 1 when the lease may grow, 0 to only shrink it (a replica giving it back)
  ARGV[12] 1 when the replica counts on the lease holding something (its mirror of the amount is above 0),
           else 0: a lease it counts on that is neither here nor marked expired was lost (a failover whose
           promoted master never received it) and is 'lost', not granted anew under the same id — the replica's
           mirror would then count what it held before on top of what Redis holds

  Returns {state, delta, amount, expired, name, logBodies, models, expiresAt, hash, previousHash,
           previousUntil}
    state    'ok', 'limits' (the key has rate or concurrency limits), 'lost' (the lease had expired — its
             amount was released — or vanished in a failover: its requests are no longer covered by it), or the
             code reserve would
             refuse the key with: 'invalid_api_key', 'key_revoked', 'key_expired', 'key_disabled'
    delta    how much the lease changed in this call (µ₽); amount: what it holds now
    expired  reservations of the account released in this call because they expired unsettled
    the rest are the key's fields the replica checks each request against ('' when absent)
]]
--- @include "purgeExpiredReservations"
--- @include "budgetWindows"
--- @include "resizeLease"

local now = tonumber(ARGV[1])
local leaseId = ARGV[5]
local asked = tonumber(ARGV[6])
local expired = purgeExpiredReservations(KEYS[3], KEYS[4], KEYS[5], ARGV[1], tonumber(ARGV[9]), tonumber(ARGV[8]))

local record = redis.call('HMGET', KEYS[1],
  'id', 'name', 'log_bodies', 'models', 'budget', 'expires_at', 'revoked_at', 'period', 'spent', 'period_start',
  'disabled_at', 'hash', 'previous_hash', 'previous_until', 'rpm', 'tpm', 'max_parallel')
local keyId = record[1]

local state = 'ok'
if not keyId then state = 'invalid_api_key'
elseif record[7] then state = 'key_revoked'
elseif record[6] and now >= tonumber(record[6]) then state = 'key_expired'
elseif record[11] then state = 'key_disabled'
elseif record[15] or record[16] or record[17] then state = 'limits' end

local held = redis.call('HGET', KEYS[4], leaseId)
local leaseKeyId, leaseAmount, _, _, _, isLease = parseReservation(held)
local current = 0
if isLease then current = tonumber(leaseAmount) end
-- An 'expired' marker under a lease's id: it expired while the replica still counted on it; no record at all
-- while the replica counts on one: a failover lost it.
if held == 'expired' or (not held and ARGV[12] == '1') then state = 'lost' end

local amount = math.min(asked, current)
if asked > current and state == 'ok' and ARGV[11] == '1' then
  local starts = { day = ARGV[2], week = ARGV[3], month = ARGV[4] }
  local keyWindows = readWindows(KEYS[1], starts, true)
  local accountWindows, account = readWindows(KEYS[2], starts, false, { 'balance', 'billing' })
  local reserved = redis.call('HMGET', KEYS[5], keyId, '*')
  local balance
  if balanceRequired(account[2], accountWindows) then balance = tonumber(account[1] or '0') end
  local free = freeToReserve(balance, tonumber(reserved[2] or '0'), keyWindows, tonumber(reserved[1] or '0'),
    accountWindows)
  amount = math.min(asked, math.max(current, leaseCap(free + current, tonumber(ARGV[10]))))
end
if state ~= 'lost' then
  resizeLease(KEYS[3], KEYS[4], KEYS[5], leaseId, leaseKeyId or keyId, current, amount, ARGV[7])
end

return { state, string.format('%d', amount - current), string.format('%d', amount), expired, record[2] or '',
  record[3] or '', record[4] or '', record[6] or '', record[12] or '', record[13] or '', record[14] or '' }
