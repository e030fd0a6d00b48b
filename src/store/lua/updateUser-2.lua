--[[
  Changes fields of an existing user record and, when an entry is given, records the change in the person's
  audit log in the same step. Used for the display name, the status (active, disabled), the password hash,
  the providers the person signs in with and the time of the last sign-in (which is not audited).

  KEYS[1]  user hash           {u:<user>}:user
  KEYS[2]  audit log list      {u:<user>}:audit

  ARGV[1]  audit entry (JSON), or '' to record nothing
  ARGV[2]  most audit entries kept
  ARGV[3…] field, value pairs; an empty value removes the field

  Returns  {'ok'} | {'user_not_found'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'user_not_found' }
end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
if ARGV[1] ~= '' then
  appendAudit(KEYS[2], ARGV[1], ARGV[2])
end
return { 'ok' }
