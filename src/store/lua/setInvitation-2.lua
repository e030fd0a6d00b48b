--[[
  Adds, replaces or removes a pending invitation in the account's list, and records it in the account's
  audit log in the same step. The invitation's one-time link lives outside the account's tag (found by its
  token's hash) and is written before an invitation is listed, deleted after it is removed.

  KEYS[1]  invitations hash    {a:<account>}:invitations
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  invitation id
  ARGV[2]  the invitation as JSON, or '' to remove it
  ARGV[3]  audit entry (JSON), or '' to record nothing
  ARGV[4]  most audit entries kept

  Returns  {'ok', previous JSON or ''}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'list' })
if wrongType then return wrongType end

local previous = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
if ARGV[3] ~= '' then
  appendAudit(KEYS[2], ARGV[3], ARGV[4])
end
return { 'ok', previous }
