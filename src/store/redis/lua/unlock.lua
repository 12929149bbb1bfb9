-- Deletes a lock only while it still holds our token.
-- KEYS: lock. ARGV: token. Returns 1 when deleted, 0 when it was not ours.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
