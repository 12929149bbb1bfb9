-- Deletes a lock only while it still holds our token: the token alone, or
-- (a refill lock) the token and the name of the server that granted it, on
-- whichever server it is now (a copy of our lock is ours to drop).
-- KEYS: lock. ARGV: token. Returns 1 when deleted, 0 when it was not ours.
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] or (held and string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. ' ') then
  return redis.call('DEL', KEYS[1])
end
return 0
