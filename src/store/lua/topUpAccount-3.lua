--[[
  Adds a positive amount to an account's balance, and records it in the account's audit log. The new
  balance may not pass the largest amount the gateway represents exactly (the caller passes it), so that
  money never loses precision. A balance lifted back to the account's low-balance mark, or above zero, re-arms
  balance.low and balance.exhausted (balanceAlerts.lua).

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  audit log list      {a:<account>}:audit
  KEYS[3]  change channel      {a:<account>}:changes (sharded pub/sub: every replica drops its leases)

  ARGV[1]  amount (µ₽, integer > 0)
  ARGV[2]  largest allowed balance (µ₽)
  ARGV[3]  audit entry (JSON)
  ARGV[4]  most audit entries kept

  Returns  {'ok', balance} | {'account_not_found'} | {'balance_too_large', balance}
]]
--- @include "appendAudit"
--- @include "publishChange"
--- @include "balanceAlerts"

local balance = redis.call('HGET', KEYS[1], 'balance')
if not balance then
  return { 'account_not_found' }
end
if tonumber(balance) + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  return { 'balance_too_large', tonumber(balance) }
end
local after = redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1])
rearmBalanceAlerts(KEYS[1], after)
appendAudit(KEYS[2], ARGV[3], ARGV[4])
publishChange(KEYS[3], '*')
return { 'ok', after }
