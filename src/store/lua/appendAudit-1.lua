--[[
  Records an entry in an audit log whose change happened elsewhere: an account's log, for a change whose own
  script wrote to the person's log (an API token scoped to the account), since one script cannot touch two
  tags on Redis Cluster.

  KEYS[1]  audit log list      {a:<account>}:audit | {u:<user>}:audit

  ARGV[1]  audit entry (JSON)
  ARGV[2]  most audit entries kept

  Returns  {'ok'}
]]
--- @include "appendAudit"

appendAudit(KEYS[1], ARGV[1], ARGV[2])
return { 'ok' }
