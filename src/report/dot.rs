//! The search graph in Graphviz DOT, as Cubicle's `-dot` draws it: a box
//! per node labelled with its cube (roots bold, covered nodes grey, deleted
//! and pending ones dotted), an edge per pre-image labelled with its
//! transition, dashed edges from covered nodes to their coverers.

use crate::answer::{EdgeKind, NodeKind, SearchGraph};
use std::fmt::Write as _;

/// A DOT string literal's contents.
fn quoted(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The graph in DOT.
pub fn graph(g: &SearchGraph) -> String {
    let mut out = String::from("digraph search {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontsize=9];\n");
    for (k, n) in g.nodes.iter().enumerate() {
        let style = match n.kind {
            NodeKind::Root => "style=bold, color=red",
            NodeKind::Visited => "style=solid",
            NodeKind::Covered => "style=filled, fillcolor=lightgrey",
            NodeKind::Deleted | NodeKind::Pending => "style=dotted",
        };
        let label: Vec<String> = n.cubes.iter().map(super::cube).collect();
        let _ = writeln!(out, "  n{k} [label=\"#{k}: {}\", {style}];", quoted(&label.join("\n∨ ")));
    }
    for e in &g.edges {
        match &e.kind {
            EdgeKind::Pre(t) => {
                let _ = writeln!(out, "  n{} -> n{} [label=\"{}\"];", e.from, e.to, quoted(t));
            }
            EdgeKind::Covers => {
                let _ = writeln!(out, "  n{} -> n{} [style=dashed, color=blue, constraint=false];", e.from, e.to);
            }
        }
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{GraphEdge, GraphNode};
    use crate::logic::{Sort, Term};
    use crate::system::cube::Cube;

    fn cube(name: &str) -> Cube {
        Cube::plain(vec![Term::var("z1", Sort::Int)], vec![Term::var(name, Sort::Bool)])
    }

    #[test]
    fn draws_nodes_and_edges() {
        let g = SearchGraph {
            nodes: vec![GraphNode { cubes: vec![cube("\"x\"")], kind: NodeKind::Root }, GraphNode { cubes: vec![], kind: NodeKind::Covered }],
            edges: vec![GraphEdge { from: 0, to: 1, kind: EdgeKind::Pre("t1".into()) }, GraphEdge { from: 1, to: 0, kind: EdgeKind::Covers }],
        };
        let d = graph(&g);
        assert!(d.starts_with("digraph search {"), "{d}");
        assert!(d.contains(r##"n0 [label="#0: ∃z1. \"x\"", style=bold"##), "{d}");
        assert!(d.contains(r#"n0 -> n1 [label="t1"]"#) && d.contains("n1 -> n0 [style=dashed"), "{d}");
    }
}
