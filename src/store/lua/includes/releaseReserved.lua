--[[
  Fragment: releases one reservation's hold: takes `amount` (µ₽, a string of digits) off what is reserved for
  its key and for its account, and — when `inFlight` (the reservation counted it) — its request off the key's
  count of requests in flight, dropping counters that reach zero so that the hash does not grow with every
  key that ever had a request.

  reservedKey  hash  <keyId> -> µ₽ reserved, <keyId>#n -> requests in flight, "*" -> µ₽ for the account
]]
local function releaseReserved(reservedKey, keyId, amount, inFlight)
  if inFlight and redis.call('HINCRBY', reservedKey, keyId .. '#n', -1) <= 0 then
    redis.call('HDEL', reservedKey, keyId .. '#n')
  end
  if amount == '0' then return end
  if redis.call('HINCRBY', reservedKey, keyId, '-' .. amount) == 0 then
    redis.call('HDEL', reservedKey, keyId)
  end
  if redis.call('HINCRBY', reservedKey, '*', '-' .. amount) == 0 then
    redis.call('HDEL', reservedKey, '*')
  end
end

--[[
  A reservation record: "<keyId> <amount> <tokens>", amount in µ₽ and tokens "<count>:<tpm>", the worst case
  counted against the key's tokens-per-minute limit and that limit's value then, or '-' when none was counted
  (the key had no such limit), or 'L' for a replica's admission lease (lease-5.lua), which holds an amount
  and no request. A record of two fields, "<keyId> <amount>", was written before limits existed: it counted
  neither tokens nor a request in flight.
  Returns keyId, amount, tokens and tpm (nil when none were counted), inFlight (whether a request in flight
  was counted), lease (whether it is a lease) — or nil for anything else (the 'expired' marker).
]]
local function parseReservation(record)
  if not record then return nil end
  local keyId, amount, tokens = string.match(record, '^(%S+) (%d+) (%S+)$')
  if keyId then
    local count, tpm = string.match(tokens, '^(%d+):(%d+)$')
    local lease = tokens == 'L'
    return keyId, amount, count, tpm, not lease, lease
  end
  keyId, amount = string.match(record, '^(%S+) (%d+)$')
  if keyId then return keyId, amount, nil, nil, false, false end
  return nil
end
