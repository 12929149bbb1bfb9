-- Deletes a lock only while it still holds our token.
-- KEYS: lock. ARGV: token. Returns 1 when deleted, 0 when it was not ours.
local role = string.match(redis.call('INFO', 'replication'), 'role:(%a+)') or 'unknown' if role ~= 'master' then return redis.error_reply('READONLY idgen: this server is not the master (role:' .. role .. ')') end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
