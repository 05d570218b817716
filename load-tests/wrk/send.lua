-- wrk script: SendMessage over AWS Query (a form POST), 256-byte body, to the queue in the
-- environment's QUEUE_URL (default: "bench" on 127.0.0.1:9500). Used by load-tests/wrk/send.sh and
-- load-tests/wrk/compare.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local body = string.rep("x", tonumber(os.getenv("MESSAGE_SIZE") or "256"))
wrk.body = "Action=SendMessage&Version=2012-11-05&QueueUrl=" .. queue .. "&MessageBody=" .. body
