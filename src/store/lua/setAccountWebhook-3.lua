--[[
  Sets, replaces or removes an account's own webhook, and records it in the account's audit log (the URL's
  origin only, never the secret). A webhook is its URL, its signing secret and the event types it receives.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  webhook hash        {a:<account>}:webhook
  KEYS[3]  audit log list      {a:<account>}:audit

  ARGV[1]  URL, or '' to remove the webhook
  ARGV[2]  signing secret
  ARGV[3]  its hint (last characters)
  ARGV[4]  event types, comma-separated, or '' for every type
  ARGV[5]  now (ms)
  ARGV[6]  audit entry (JSON)
  ARGV[7]  most audit entries kept

  Returns  {'ok', 1 if there was a webhook before else 0} | {'account_not_found'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'hash', [KEYS[3]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'account_not_found' }
end
local existed = redis.call('EXISTS', KEYS[2])
if ARGV[1] == '' then
  if existed == 0 then return { 'ok', 0 } end
  redis.call('DEL', KEYS[2])
else
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'url', ARGV[1], 'secret', ARGV[2], 'hint', ARGV[3], 'events', ARGV[4],
    'created_at', ARGV[5])
end
appendAudit(KEYS[3], ARGV[6], ARGV[7])
return { 'ok', existed }
