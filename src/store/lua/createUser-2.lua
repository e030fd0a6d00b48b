--[[
  Creates a user record — with the local password's hash when the creation sets one, so that a user and
  their password are written together or not at all — and records it in the person's audit log. Refuses an
  id that is already taken, so that creating a user twice can never overwrite one (the e-mail's uniqueness
  is claimed before, with SET NX on its lookup key, which lives in another slot).

  KEYS[1]  user hash           {u:<user>}:user
  KEYS[2]  audit log list      {u:<user>}:audit

  ARGV[1]  user id
  ARGV[2]  display name
  ARGV[3]  e-mail, case-folded
  ARGV[4]  now (ms)
  ARGV[5]  operator grants as JSON (source -> role), or '' for none
  ARGV[6]  audit entry (JSON)
  ARGV[7]  most audit entries kept
  ARGV[8]  the password's PHC string (argon2id), or '' for none

  Returns  {'ok'} | {'user_exists'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 1 then
  return { 'user_exists' }
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'email', ARGV[3], 'status', 'active',
  'created_at', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'operator', ARGV[5])
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'password', ARGV[8])
end
appendAudit(KEYS[2], ARGV[6], ARGV[7])
return { 'ok' }
