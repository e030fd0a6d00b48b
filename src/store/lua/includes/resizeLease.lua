--[[
  Fragment: a replica's admission lease (see lease-5.lua) as a reservation record, and what may still be
  reserved for a key.

  resizeLease sets the lease to `amount` µ₽ (from `current`), moving the difference into or out of what is
  reserved for its key and its account, and gives it a new expiry when `expiresAt` is given; a lease of 0 is
  deleted. Amounts are written with %d: Lua would print a large number as 1e+14, which HINCRBY refuses.

  resvKey      zset  reservation id -> expiry (ms)
  recordsKey   hash  reservation id -> record ("<keyId> <amount> L" for a lease)
  reservedKey  hash  <keyId> -> µ₽ reserved for the key, "*" -> µ₽ reserved for the account
]]
local function resizeLease(resvKey, recordsKey, reservedKey, leaseId, keyId, current, amount, expiresAt)
  local delta = amount - current
  if delta ~= 0 then
    local by = string.format('%d', delta)
    if redis.call('HINCRBY', reservedKey, keyId, by) == 0 then redis.call('HDEL', reservedKey, keyId) end
    if redis.call('HINCRBY', reservedKey, '*', by) == 0 then redis.call('HDEL', reservedKey, '*') end
  end
  if amount > 0 then
    redis.call('HSET', recordsKey, leaseId, keyId .. ' ' .. string.format('%d', amount) .. ' L')
    if expiresAt then redis.call('ZADD', resvKey, expiresAt, leaseId) end
  elseif current > 0 or redis.call('HEXISTS', recordsKey, leaseId) == 1 then
    redis.call('HDEL', recordsKey, leaseId)
    redis.call('ZREM', resvKey, leaseId)
  end
end

--[[
  What may still be reserved for a key (µ₽, possibly negative): the least of what each of its budget windows
  leaves beyond its spent amount and the key's reserved amount, what each of the account's windows leaves
  beyond its spent amount and the account's reserved amount, and — when the balance limits the account
  (`balance` not nil) — what the balance leaves beyond the account's reserved amount. Needs budgetWindows.lua.

  Each of the three limits may be absent (nil): a key without a window of its own, an account without
  windows, a budgeted account's balance. They are taken one by one, never as a list, which ipairs would cut
  at the first nil. Something always limits an account (balanceRequired), so the result is never nil; were
  it, 0 grants no lease rather than an unlimited one.
]]
local function freeToReserve(balance, accountReserved, keyWindows, keyReserved, accountWindows)
  local free = balance and (balance - accountReserved)
  local keyFree = windowsFree(keyWindows, keyReserved)
  if keyFree and (not free or keyFree < free) then free = keyFree end
  local accountFree = windowsFree(accountWindows, accountReserved)
  if accountFree and (not free or accountFree < free) then free = accountFree end
  return free or 0
end

--[[
  The most a replica's lease may hold: 1/share of `available`, what the budget and the balance would leave
  for the key without this lease (µ₽, may be negative).
]]
local function leaseCap(available, share)
  return math.floor(math.max(0, available) / share)
end
