//! Which node serves an app, and the one place that decides how a move
//! between nodes may proceed: `move_to`, `begin`, `switch`, `finish`.

use crate::error::Result;
use serde::Serialize;

/// Which Redis node serves an app, from the durable routing table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Route {
    /// The node that serves the app.
    pub node: String,
    /// While a move is stocking it: the node the app is moving to.
    pub incoming: Option<String>,
    /// After the switch, while its stock is retired: the node the app left.
    pub outgoing: Option<String>,
}

impl Route {
    /// The route of an app that never moved.
    pub fn default_node() -> Self {
        Route {
            node: crate::config::DEFAULT_NODE.to_string(),
            incoming: None,
            outgoing: None,
        }
    }

    /// May a refill stock `node` for this app?
    pub fn allows(&self, node: &str) -> bool {
        self.node == node || self.incoming.as_deref() == Some(node)
    }

    /// Is a move under way?
    pub fn moving(&self) -> bool {
        self.incoming.is_some() || self.outgoing.is_some()
    }

    /// Where a move of `app` to node `to` stands on this route: the node the
    /// app leaves and the phase, or why that move cannot run now (another
    /// move is under way). The one place that decides which moves may start
    /// or resume; the ledgers only persist the routes it gives.
    pub fn move_to(&self, app: u8, to: &str) -> Result<(String, MovePhase)> {
        use crate::error::Error;
        match (&self.incoming, &self.outgoing) {
            (Some(incoming), _) if incoming == to => Ok((self.node.clone(), MovePhase::Stocking)),
            (Some(incoming), _) => Err(Error::MigrationConflict {
                app,
                target: incoming.clone(),
                detail: format!("a move to {to:?} must wait until it finishes"),
            }),
            (None, Some(outgoing)) if self.node == to => {
                Ok((outgoing.clone(), MovePhase::Retiring))
            }
            (None, Some(outgoing)) => Err(Error::MigrationConflict {
                app,
                target: self.node.clone(),
                detail: format!("node {outgoing:?} is still being retired"),
            }),
            (None, None) if self.node == to => Ok((self.node.clone(), MovePhase::Done)),
            (None, None) => Ok((self.node.clone(), MovePhase::NotStarted)),
        }
    }

    /// The route once a move to `to` has begun (or resumed): refills may stock
    /// `to` from now on, and still the current node.
    pub fn begin(&self, app: u8, to: &str) -> Result<Route> {
        Ok(match self.move_to(app, to)?.1 {
            MovePhase::NotStarted => Route {
                node: self.node.clone(),
                incoming: Some(to.to_string()),
                outgoing: None,
            },
            MovePhase::Stocking | MovePhase::Retiring | MovePhase::Done => self.clone(),
        })
    }

    /// The route once `to` serves the app: the old node is only retired.
    pub fn switch(&self, app: u8, to: &str) -> Result<Route> {
        match self.move_to(app, to)?.1 {
            MovePhase::Stocking => Ok(Route {
                node: to.to_string(),
                incoming: None,
                outgoing: Some(self.node.clone()),
            }),
            MovePhase::Retiring | MovePhase::Done => Ok(self.clone()),
            MovePhase::NotStarted => Err(crate::error::Error::Internal(format!(
                "app {app} is not being moved to {to:?}"
            ))),
        }
    }

    /// The route once the old node's stock is gone.
    pub fn finish(&self) -> Route {
        Route {
            node: self.node.clone(),
            incoming: None,
            outgoing: None,
        }
    }
}

/// Where a move stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MovePhase {
    /// Nothing started: the app is on `from`.
    NotStarted,
    /// The new node is being stocked; the old one still serves.
    Stocking,
    /// The route points at the new node; the old node's stock is being retired.
    Retiring,
    /// The app is already served by the target node.
    Done,
}

#[cfg(test)]
mod tests {
    use super::{MovePhase, Route};
    use crate::error::Error;

    fn on(node: &str) -> Route {
        Route {
            node: node.into(),
            incoming: None,
            outgoing: None,
        }
    }

    #[test]
    fn a_move_runs_begin_switch_finish_and_each_step_resumes() {
        let start = on("main");
        assert_eq!(start.move_to(1, "hot").unwrap().1, MovePhase::NotStarted);
        let stocking = start.begin(1, "hot").unwrap();
        assert!(stocking.allows("main") && stocking.allows("hot"));
        assert_eq!(stocking.begin(1, "hot").unwrap(), stocking, "resumes");
        let retiring = stocking.switch(1, "hot").unwrap();
        assert_eq!(retiring.node, "hot");
        assert_eq!(retiring.outgoing.as_deref(), Some("main"));
        assert!(!retiring.allows("main"), "the old node is only retired");
        assert_eq!(
            retiring.move_to(1, "hot").unwrap(),
            ("main".into(), MovePhase::Retiring)
        );
        assert_eq!(retiring.switch(1, "hot").unwrap(), retiring, "resumes");
        assert_eq!(retiring.finish(), on("hot"));
        assert_eq!(on("hot").move_to(1, "hot").unwrap().1, MovePhase::Done);
    }

    #[test]
    fn another_move_waits_for_the_one_under_way() {
        let stocking = on("main").begin(1, "hot").unwrap();
        let retiring = stocking.switch(1, "hot").unwrap();
        for (route, to) in [
            (&stocking, "cold"),
            (&retiring, "cold"),
            (&retiring, "main"),
        ] {
            assert!(
                matches!(route.begin(1, to), Err(Error::MigrationConflict { .. })),
                "{route:?} to {to}"
            );
        }
        assert!(on("main").switch(1, "hot").is_err(), "no move begun");
    }
}
