-- wrk script: SendMessage over AWS Query (a form POST), 256-byte body, to the queue "bench" on
-- the node given to wrk. Used by load-tests/wrk/send.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
local body = string.rep("x", 256)
wrk.body = "Action=SendMessage&Version=2012-11-05&QueueUrl=http://127.0.0.1:9500/000000000000/bench&MessageBody=" .. body
