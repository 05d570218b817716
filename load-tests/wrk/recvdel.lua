-- wrk script: ReceiveMessage (MaxNumberOfMessages=10, WaitTimeSeconds=0) and DeleteMessageBatch of
-- what came, over AWS Query (PROTOCOL=query, the default) or AWS JSON 1.0 (PROTOCOL=json), against
-- the queue in QUEUE_URL, which holds messages stored beforehand (fill.lua). Used by
-- load-tests/wrk/compare.sh.
--
-- Every connection sends a receive; an answer with messages queues a DeleteMessageBatch of their
-- receipt handles, which the next request to go out (on any connection) sends. Counted: messages
-- received, receipt handles deleted, failures (non-2xx answers and refused batch entries). A
-- run ends at wrk's -d or when the queue looks drained: EMPTY_RECEIVES (default 32) empty receives
-- in a row stop the thread and create the file named by STOP_FILE (if set), on which compare.sh
-- interrupts wrk (wrk itself waits out -d). The measured window runs from the first request to the
-- last answer that deleted something (a monotonic clock through LuaJIT's FFI), so the drained
-- queue's empty receives and the wait for the interrupt are not in it. done() prints one line that
-- compare.sh reads:
--   recvdel received=N deleted=N failed=N duration_us=N
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local now_us = dofile(here .. "/clock.lua")

local protocol = os.getenv("PROTOCOL") or "query"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local stop_after = tonumber(os.getenv("EMPTY_RECEIVES") or "32")
local stop_file = os.getenv("STOP_FILE")

local sqs = dofile(here .. "/sqs.lua")

started_us, ended_us = 0, 0
local empties = 0

sqs.consume(protocol, queue, 0, {
  request = function()
    if started_us == 0 then started_us = now_us() end
  end,
  received = function(n)
    if n > 0 then
      empties = 0
      return
    end
    empties = empties + 1
    if empties == stop_after then
      wrk.thread:stop()
      if stop_file then io.open(stop_file, "w"):close() end
    end
  end,
  deleted = function(n)
    if n > 0 then ended_us = now_us() end
  end,
})

local threads, total = sqs.keep_threads()

function done(summary, latency, requests)
  local window = 0
  for _, t in ipairs(threads) do
    window = math.max(window, t:get("ended_us") - t:get("started_us"))
  end
  io.write(string.format("recvdel received=%d deleted=%d failed=%d duration_us=%d\n",
    total("received"), total("deleted"), total("failed"), window))
end
