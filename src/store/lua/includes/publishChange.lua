--[[
  Fragment: tells every gateway replica that something its admission leases rely on has changed, on the
  account's change channel (sharded pub/sub, so that on a Redis Cluster the message goes through the
  account's own shard). The message is a key id (that key changed: its leases are dropped), '*' (the
  account's balance went up: a replica starved of lease may try again) or 'reclaim <keyId>' (a replica
  refused a request while others hold lease on that key: they give back what they do not use).

  redis.pcall: SPUBLISH exists from Redis 7 on. On 6.2 the call fails, and the gateway uses no leases there.

  channel  the account's change channel  {a:<account>}:changes
]]
local function publishChange(channel, message)
  redis.pcall('SPUBLISH', channel, message)
end
