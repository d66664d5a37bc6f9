-- The holder's one write to its entries, renewal and release alike, all of them or none: the server must still be the
-- instance the holder claimed on, and each entry must still carry the holder's fencing token. A takeover or an
-- operator's release replaces the token, so once either commits no renewal or release of the former holder matches
-- again; a server restored from a snapshot or promoted by a failover may have forgotten that takeover and show the
-- former holder's token again, so no holder renews on another instance than its claim's.
-- KEYS[1]: the hash. ARGV[1]: the fencing token. ARGV[2]: the server instance of the claim (run_id.master_replid, see
-- read.lua). Then pairs: machine ID, the entry to write.
-- Returns 'ok', 'store:<instance>' (another server instance), 'gone:<id>' (the entry is missing) or 'moved:<id>' (it
-- carries another token).
local info = redis.call('INFO', 'server')
local replication = redis.call('INFO', 'replication')
local instance = string.match(info, 'run_id:(%w+)') .. '.' .. (string.match(replication, 'master_replid:(%w+)') or '')
if instance ~= ARGV[2] then
  return 'store:' .. instance
end
for i = 3, #ARGV, 2 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if not current then
    return 'gone:' .. ARGV[i]
  end
  if string.match(current, '^[^|]*|[^|]*|[^|]*|([^|]*)|') ~= ARGV[1] then
    return 'moved:' .. ARGV[i]
  end
end
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 'ok'
