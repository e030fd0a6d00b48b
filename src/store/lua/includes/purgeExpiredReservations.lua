--- @include "releaseReserved"
--[[
  Fragment: releases reservations whose time is up. A reservation outlives its request only when a
  gateway replica died (or lost Redis for longer than the reservation's lifetime) before settling it; the
  amount it held goes back to the key and the account here, and its request leaves the key's count of
  requests in flight, lazily, the next time any script touches the account. The record stays behind as an
  'expired' marker for `rememberMs`, so that the request, should it still settle, is charged exactly once;
  markers older than that are dropped. At most `limit` entries are handled per call, to bound the script's
  time.

  resvKey      zset  reservation id -> expiry (ms)
  recordsKey   hash  reservation id -> "<keyId> <amount> <tokens>" (see parseReservation), or "expired"
  reservedKey  hash  <keyId> -> amount reserved for that key, <keyId>#n -> its requests in flight,
                     "*" -> amount reserved for the account
  now          current time (ms), a string
  rememberMs   how long an expired reservation is remembered (ms), a number

  Returns the number of reservations that expired unsettled in this call.
]]
local function purgeExpiredReservations(resvKey, recordsKey, reservedKey, now, rememberMs, limit)
  local ids = redis.call('ZRANGEBYSCORE', resvKey, '-inf', now, 'LIMIT', 0, limit)
  local expired = 0
  for _, id in ipairs(ids) do
    local keyId, amount, _, _, inFlight = parseReservation(redis.call('HGET', recordsKey, id))
    if keyId then
      releaseReserved(reservedKey, keyId, amount, inFlight)
      redis.call('HSET', recordsKey, id, 'expired')
      redis.call('ZADD', resvKey, tonumber(now) + rememberMs, id)
      expired = expired + 1
    else
      redis.call('HDEL', recordsKey, id)
      redis.call('ZREM', resvKey, id)
    end
  end
  return expired
end
