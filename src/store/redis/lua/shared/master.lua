-- Prelude of every script that reads or writes idgen's keys.

-- Reads one field of an INFO section's text ('role', 'run_id', ...): the
-- value after `name:` at the start of a line, or nil. A plain search, then
-- one anchored match: a pattern tried at every position of the text (as
-- `string.match(text, 'name:(...)')` does) costs several microseconds of the
-- server's one thread in every script.
local function info_field(text, name)
  local key = name .. ':'
  local at = #key
  if string.sub(text, 1, at) ~= key then
    local _, found = string.find(text, '\n' .. key, 1, true)
    if not found then return nil end
    at = found
  end
  return string.match(text, '^[^\r\n]*', at + 1)
end

-- Only the master runs a script. A replica with `replica-read-only no` takes
-- writes, and a demoted master keeps its clients' connections: on either, a
-- take would pop stock its master serves too, a push would stock what the
-- master never sees, and a lease would be granted or renewed on a dataset the
-- master no longer shares. So every script refuses first, before any read or
-- write, with an error whose code is READONLY, like a read-only replica's own
-- answer: clients drop the link and find the master again (Sentinel), or wait
-- and retry. The section is read once, here; the scripts that name this
-- server's replication history read it from `replication` (a script runs
-- atomically, so nothing changes in between).
local replication = redis.call('INFO', 'replication')
local role = info_field(replication, 'role') or 'unknown'
if role ~= 'master' then
  return redis.error_reply('READONLY idgen: this server is not the master (role:' .. role .. ')')
end
