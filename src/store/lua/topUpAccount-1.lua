--[[
  Adds a positive amount to an account's balance. The new balance may not pass the largest amount the
  gateway represents exactly (the caller passes it), so that money never loses precision.

  KEYS[1]  account hash        {a:<account>}:account

  ARGV[1]  amount (µ₽, integer > 0)
  ARGV[2]  largest allowed balance (µ₽)

  Returns  {'ok', balance} | {'account_not_found'} | {'balance_too_large', balance}
]]
local balance = redis.call('HGET', KEYS[1], 'balance')
if not balance then
  return { 'account_not_found' }
end
if tonumber(balance) + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  return { 'balance_too_large', tonumber(balance) }
end
return { 'ok', redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1]) }
