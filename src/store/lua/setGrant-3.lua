--[[
  Sets or removes one source's grant of a role, where grants are kept as JSON (source -> role) in a field of
  a hash: a person's grants in an account (the account's members hash, field: the user id) or a person's
  operator grants (the user hash, field 'operator'). A source is "direct" or "oidc:<provider>"; the highest
  grant is the person's role. The change and its audit entry are one step; a change that changes nothing
  records nothing, so that re-applying a provider's mapping at every sign-in does not fill the log.

  KEYS[1]  hash holding the grants   {a:<account>}:members | {u:<user>}:user
  KEYS[2]  audit log list            {a:<account>}:audit   | {u:<user>}:audit
  KEYS[3]  key that must exist       {a:<account>}:account | {u:<user>}:user

  ARGV[1]  field of KEYS[1]: the user id, or 'operator'
  ARGV[2]  source, or '*' to remove every source's grant (with an empty ARGV[3])
  ARGV[3]  role, or '' to remove the grant
  ARGV[4]  audit entry (JSON)
  ARGV[5]  most audit entries kept

  Returns  {'ok', grants JSON or ''} | {'unchanged', grants JSON or ''} | {'not_found'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[3]) == 0 then
  return { 'not_found' }
end
local current = redis.call('HGET', KEYS[1], ARGV[1])
local grants = {}
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' then grants = decoded end
end

local changed = false
if ARGV[2] == '*' then
  if next(grants) ~= nil then
    grants = {}
    changed = true
  end
elseif ARGV[3] == '' then
  if grants[ARGV[2]] ~= nil then
    grants[ARGV[2]] = nil
    changed = true
  end
elseif grants[ARGV[2]] ~= ARGV[3] then
  grants[ARGV[2]] = ARGV[3]
  changed = true
end

local encoded = ''
if next(grants) ~= nil then encoded = cjson.encode(grants) end
if not changed then
  return { 'unchanged', encoded }
end
if encoded == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], encoded)
end
appendAudit(KEYS[2], ARGV[4], ARGV[5])
return { 'ok', encoded }
