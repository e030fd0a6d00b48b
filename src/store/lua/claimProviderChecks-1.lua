--[[
  Claims the re-checks with identity providers that are due, for one replica: each due member is moved to
  now + lease, so that no other replica claims it while this one checks it (a replica that dies mid-check
  leaves it to be claimed again once the lease ends). The checker then schedules the member's next check,
  or removes it.

  KEYS[1]  due zset            provider-checks   member "<userId> <providerId>", score: when due (ms)

  ARGV[1]  now (ms)
  ARGV[2]  lease (ms)
  ARGV[3]  most members claimed

  Returns  the members claimed
]]

local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), member)
end
return due
