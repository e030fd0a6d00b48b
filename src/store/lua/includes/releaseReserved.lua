--[[
  Fragment: takes `amount` (µ₽, a string of digits) off what is reserved for one key and for its account,
  dropping counters that reach zero so that the hash does not grow with every key that ever had a request.
]]
local function releaseReserved(reservedKey, keyId, amount)
  if amount == '0' then return end
  if redis.call('HINCRBY', reservedKey, keyId, '-' .. amount) == 0 then
    redis.call('HDEL', reservedKey, keyId)
  end
  if redis.call('HINCRBY', reservedKey, '*', '-' .. amount) == 0 then
    redis.call('HDEL', reservedKey, '*')
  end
end
