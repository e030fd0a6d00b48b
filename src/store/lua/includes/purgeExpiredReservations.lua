--- @include "releaseReserved"
--[[
  Fragment: releases reservations whose time is up, and forgets settled requests whose dedup window has
  passed. A reservation outlives its request only when a gateway replica died before settling it; the
  amount it held goes back to the key's and the account's available money here, lazily, the next time
  any script touches the account. At most `limit` entries are handled per call to bound the script's time.

  resvKey      zset  reservation id -> expiry (ms)
  recordsKey   hash  reservation id -> "<keyId> <amount>" while reserved, "settled" once settled
  reservedKey  hash  <keyId> -> amount reserved for that key, "*" -> amount reserved for the account
  now          current time (ms), as a string

  Returns the number of reservations that expired unsettled.
]]
local function purgeExpiredReservations(resvKey, recordsKey, reservedKey, now, limit)
  local ids = redis.call('ZRANGEBYSCORE', resvKey, '-inf', now, 'LIMIT', 0, limit)
  local expired = 0
  for _, id in ipairs(ids) do
    local record = redis.call('HGET', recordsKey, id)
    if record and record ~= 'settled' then
      local keyId, amount = string.match(record, '^(%S+) (%d+)$')
      if keyId then
        releaseReserved(reservedKey, keyId, amount)
        expired = expired + 1
      end
    end
    redis.call('HDEL', recordsKey, id)
    redis.call('ZREM', resvKey, id)
  end
  return expired
end
