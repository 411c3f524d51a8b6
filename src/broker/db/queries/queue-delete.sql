-- DELETE /api/v1/resources/queues/:queue: removes the queue and everything under it (queen.delete_queue).
-- $1 tenant, $2 queue name.
SELECT queen.delete_queue($1, $2) AS existed
