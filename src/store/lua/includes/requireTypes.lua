--[[
  Fragment: refuses the script, before it writes anything, when one of its keys holds another type than the
  script writes there. Redis does not undo a script's writes when a later command fails, so a key of the
  wrong type in the way (a list where a hash belongs) would otherwise leave the first writes behind — a user
  without their audit entry, a grant without its account's — and answer a WRONGTYPE that names no key.

  expected  table: key -> the type the script writes there ('hash', 'list', 'zset', 'set', 'string',
            'stream'); a key that does not exist yet is fine

  Returns   nil when every key is absent or of its type; otherwise an error reply naming the key, the type
            it holds and the type it should, which the script returns at once
]]
local function requireTypes(expected)
  for key, kind in pairs(expected) do
    local found = redis.call('TYPE', key)['ok']
    if found ~= 'none' and found ~= kind then
      return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. found .. ' where a ' .. kind ..
        ' belongs; nothing was written')
    end
  end
  return nil
end
