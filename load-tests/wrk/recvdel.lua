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

received, deleted, failed, started_us, ended_us = 0, 0, 0, 0, 0
local deletes = sqs.backlog()
local empties = 0
local receive_request

function init(args)
  receive_request = sqs.receive(protocol, queue, 0)
end

function request()
  if started_us == 0 then started_us = now_us() end
  return deletes.pop() or receive_request
end

local function on_receive(body)
  local handles = sqs.handles(protocol, body)
  if #handles == 0 then
    empties = empties + 1
    if empties == stop_after then
      wrk.thread:stop()
      if stop_file then io.open(stop_file, "w"):close() end
    end
    return
  end
  empties = 0
  received = received + #handles
  deletes.push(sqs.delete_batch(protocol, queue, handles))
end

function response(status, headers, body)
  if status ~= 200 then
    failed = failed + 1
  elseif sqs.is_delete_batch_answer(body) then
    local ok, bad = sqs.delete_counts(protocol, body)
    deleted = deleted + ok
    failed = failed + bad
    if ok > 0 then ended_us = now_us() end
  else
    on_receive(body)
  end
end

local threads, total = sqs.keep_threads()

function done(summary, latency, requests)
  local window = 0
  for _, t in ipairs(threads) do
    window = math.max(window, t:get("ended_us") - t:get("started_us"))
  end
  io.write(string.format("recvdel received=%d deleted=%d failed=%d duration_us=%d\n",
    total("received"), total("deleted"), total("failed"), window))
end
