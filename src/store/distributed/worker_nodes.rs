//! The `worker-node` assigner on the distributed backend: the namespace is
//! recorded in Redis like a leased one (so the two assigners can never share a
//! namespace), the worker ID comes from MySQL's `WORKER_NODE`, and Redis
//! witnesses the highest one handed out.

use crate::error::Result;
use crate::lease::{NamespaceSpec, WorkerNodeAssigner};
use crate::store::mysql::MysqlLedger;
use crate::store::redis::RedisNode;
use async_trait::async_trait;
use std::sync::Arc;

pub struct DistributedWorkerNodes {
    pub ledger: Arc<MysqlLedger>,
    pub redis: Arc<RedisNode>,
}

#[async_trait]
impl WorkerNodeAssigner for DistributedWorkerNodes {
    async fn assign(&self, namespace: &NamespaceSpec, host: &str, port: &str) -> Result<u64> {
        // Durably first: Redis's record alone can vanish with its data.
        self.ledger
            .claim_namespace(namespace, crate::clock::process_now_ms())
            .await?;
        self.redis.claim_namespace(namespace).await?;
        // MySQL's counter can go back in time with MySQL: Redis witnesses the
        // highest ID handed out, before it is used, and MySQL's next is put
        // above it. Only both going back at once escapes this.
        let name = &namespace.name;
        let highest = self.redis.note_worker_node(name, 0).await?;
        let worker = self.ledger.insert_worker_node(host, port, highest).await?;
        namespace.check_assigned(worker)?;
        self.redis.note_worker_node(name, worker).await?;
        Ok(worker)
    }
}
