-- The completion of an operation: its side effect, counted once per completion key.
-- KEYS[1] = RUN:done:<completion key>, KEYS[2] = RUN:effects
-- ARGV[1] = the final response (JSON text), ARGV[2] = the op id, ARGV[3] = ttl seconds
-- Returns nil when this run committed (send ARGV[1]), or the response committed before (send that one).
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[3]) then
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
  return false
end
return redis.call('GET', KEYS[1])
