-- wrk script: end-to-end latency of SendMessage → long-poll ReceiveMessage, over AWS Query
-- (PROTOCOL=query, the default) or AWS JSON 1.0 (PROTOCOL=json), on the queue in QUEUE_URL. Two wrk
-- processes run it at once (load-tests/wrk/compare.sh, SCENARIOS=e2e):
--   ROLE=producer: SendMessage at RATE messages/s in all (default 1000) over the connections given
--     to wrk, on a fixed schedule (slot k due at start + k/RATE; wrk's delay() waits for the slot in
--     whole milliseconds). Each body is "e2e-<time sent, µs>-" padded with x to MESSAGE_SIZE bytes
--     (default 256); the time is taken as the request is handed to wrk to send. With MEASURE_AFTER=S,
--     the bodies of the first S seconds start "w2e-" instead: the warm-up, on the same queue and
--     connections as the measured part, whose messages the consumers delete without timing them.
--   ROLE=consumer: each connection loops ReceiveMessage (MaxNumberOfMessages=10, WaitTimeSeconds=20);
--     an answer with messages queues a DeleteMessageBatch of them, the next request to go out on any
--     connection (usually the one that got the answer). The latency of a message is
--     the time from its send to the arrival of the answer that carries it, on CLOCK_MONOTONIC, which
--     the two processes share.
-- done() prints one line that compare.sh reads:
--   producer: e2e sent=N failed=N
--   consumer: e2e received=N deleted=N failed=N measured=N p50_us=N p90_us=N p99_us=N p999_us=N max_us=N
-- sent, received, deleted and failed count the whole run, the warm-up included (non-2xx answers and refused
-- batch entries fail); measured counts the messages timed ("e2e-" bodies), which the percentiles are of.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local now_us = dofile(here .. "/clock.lua")
local sqs = dofile(here .. "/sqs.lua")

local role = os.getenv("ROLE") or "consumer"
local protocol = os.getenv("PROTOCOL") or "query"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local period_us = 1e6 / tonumber(os.getenv("RATE") or "1000")
local size = tonumber(os.getenv("MESSAGE_SIZE") or "256")
local measure_after_us = tonumber(os.getenv("MEASURE_AFTER") or "0") * 1e6

sent, failed = 0, 0
latencies = {}
local stamp = protocol == "json" and '"Body"%s*:%s*"e2e%-(%d+)%-' or "<Body>e2e%-(%d+)%-"

local function record_latencies(body)
  local arrived = now_us()
  for sent_us in body:gmatch(stamp) do
    latencies[#latencies + 1] = arrived - tonumber(sent_us)
  end
end

if role == "producer" then
  local start_us, slot = nil, 0
  -- wrk asks before each request how many milliseconds to wait: until the next slot is due
  function delay()
    local now = now_us()
    start_us = start_us or now
    slot = slot + 1
    local wait_us = start_us + (slot - 1) * period_us - now
    return wait_us > 0 and math.floor(wait_us / 1000) or 0
  end
  function request()
    local now = now_us()
    start_us = start_us or now
    local head = (now - start_us < measure_after_us and "w2e-" or "e2e-") .. string.format("%d", now) .. "-"
    return sqs.send(protocol, queue, head .. string.rep("x", math.max(0, size - #head)))
  end
  function response(status, headers, body)
    if status == 200 then sent = sent + 1 else failed = failed + 1 end
  end
else
  sqs.consume(protocol, queue, 20, { answer = record_latencies })
end

local threads, total = sqs.keep_threads()

function done(summary, latency, requests)
  if role == "producer" then
    io.write(string.format("e2e sent=%d failed=%d\n", total("sent"), total("failed")))
    return
  end
  local all = {}
  for _, t in ipairs(threads) do
    for _, v in ipairs(t:get("latencies")) do all[#all + 1] = v end
  end
  table.sort(all)
  local function at(q)
    if #all == 0 then return 0 end
    return all[math.max(1, math.ceil(q * #all))]
  end
  io.write(string.format(
    "e2e received=%d deleted=%d failed=%d measured=%d p50_us=%d p90_us=%d p99_us=%d p999_us=%d max_us=%d\n",
    total("received"), total("deleted"), total("failed"), #all, at(0.5), at(0.9), at(0.99), at(0.999), at(1)))
end
