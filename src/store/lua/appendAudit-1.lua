--[[
  Records an entry in an audit log whose change happened elsewhere: an account's log, for a change whose own
  script wrote to the person's log (an API token scoped to the account), since one script cannot touch two
  tags on Redis Cluster.

  KEYS[1]  audit log list      {a:<account>}:audit | {u:<user>}:audit

  ARGV[1]  audit entry (JSON)
  ARGV[2]  most audit entries kept

  Returns  {'ok'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'list' })
if wrongType then return wrongType end

appendAudit(KEYS[1], ARGV[1], ARGV[2])
return { 'ok' }
