//! The `worker-node` assigner on the distributed backend: the namespace is
//! recorded in Redis like a leased one (so the two assigners can never share a
//! namespace), the worker ID comes from MySQL's `WORKER_NODE`.

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
        let worker = self.ledger.insert_worker_node(host, port).await?;
        namespace.check_assigned(worker)
    }
}
