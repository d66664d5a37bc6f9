-- The holder's one write to its entries, renewal and release alike, all of them or none: each must still carry the
-- holder's fencing token. A takeover or an operator's release replaces the token, so once either commits no renewal
-- or release of the former holder matches again.
-- KEYS[1]: the hash. ARGV[1]: the fencing token. Then pairs: machine ID, the entry to write.
-- Returns 'ok', 'gone:<id>' (the entry is missing) or 'moved:<id>' (it carries another token).
for i = 2, #ARGV, 2 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if not current then
    return 'gone:' .. ARGV[i]
  end
  if string.match(current, '^[^|]*|[^|]*|[^|]*|([^|]*)|') ~= ARGV[1] then
    return 'moved:' .. ARGV[i]
  end
end
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 'ok'
