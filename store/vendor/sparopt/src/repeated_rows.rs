//! Lodestone patch: under `DISTINCT`, rows told apart only by variables nothing above reads
//! are dropped before a for-loop join evaluates its right side for each of them.
//!
//! BSBM's Q5 (`SELECT DISTINCT ?product ?label`, products sharing a feature and close numeric
//! properties with a given one) joins on `?feature`, which nothing above the join reads: a
//! product sharing three features comes out three times, and its label was looked up three
//! times, one index seek each (231 rows for 154 products on average at 35 M quads). The
//! left side of such a join becomes `Distinct(Project(kept, left))`, `kept` being the
//! variables it uses except those it binds and nothing above reads; the same solutions come
//! out of the outer `DISTINCT`, in the same order (a hash `DISTINCT` keeps each row's first
//! occurrence, and a stable sort keeps first occurrences first).

use crate::algebra::{GraphPattern, OrderExpression};
use crate::type_inference::{VariableTypes, infer_graph_pattern_types};
use oxrdf::Variable;
use std::collections::HashSet;

/// `pattern` with the repeats of rows dropped where a `DISTINCT` (or `REDUCED`) above would
/// drop them anyway, before for-loop joins.
pub fn drop_repeated_rows(pattern: GraphPattern) -> GraphPattern {
    rewrite(pattern, None, &HashSet::new())
}

/// `needed`: under a `DISTINCT`, the variables whose values the patterns above read or
/// return; `None` where every repeated row counts (a `COUNT`, a `LIMIT` under the `DISTINCT`).
/// `input`: the variables an enclosing for-loop join may bind before `pattern` is evaluated
/// (its left sides'), which a pattern inside uses as given and which are never dropped: a
/// `VALUES` parameter evaluated first and used by the patterns of the right side.
fn rewrite(
    pattern: GraphPattern,
    needed: Option<&HashSet<Variable>>,
    input: &HashSet<Variable>,
) -> GraphPattern {
    match pattern {
        GraphPattern::Distinct { inner } => {
            let needed = bound_variables(&inner);
            GraphPattern::distinct(rewrite(*inner, Some(&needed), input))
        }
        GraphPattern::Reduced { inner } => {
            let needed = bound_variables(&inner);
            GraphPattern::reduced(rewrite(*inner, Some(&needed), input))
        }
        // Rows a LIMIT or OFFSET counts: every repeat counts.
        GraphPattern::Slice {
            inner,
            start,
            length,
        } => GraphPattern::slice(rewrite(*inner, None, input), start, length),
        GraphPattern::Group {
            inner,
            variables,
            aggregates,
        } => GraphPattern::group(rewrite(*inner, None, input), variables, aggregates),
        GraphPattern::Project { inner, variables } => {
            let inner_needed = needed.map(|needed| {
                variables
                    .iter()
                    .filter(|v| needed.contains(*v))
                    .cloned()
                    .collect::<HashSet<_>>()
            });
            GraphPattern::project(rewrite(*inner, inner_needed.as_ref(), input), variables)
        }
        GraphPattern::Filter { expression, inner } => {
            let inner_needed = with(needed, expression.used_variables());
            GraphPattern::filter(rewrite(*inner, inner_needed.as_ref(), input), expression)
        }
        GraphPattern::Extend {
            inner,
            variable,
            expression,
        } => {
            let inner_needed = with(needed, expression.used_variables());
            GraphPattern::extend(rewrite(*inner, inner_needed.as_ref(), input), variable, expression)
        }
        GraphPattern::OrderBy { inner, expression } => {
            let keys = expression.iter().flat_map(|key| {
                let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = key;
                e.used_variables()
            });
            let inner_needed = with(needed, keys);
            GraphPattern::order_by(rewrite(*inner, inner_needed.as_ref(), input), expression)
        }
        GraphPattern::Union { inner } => GraphPattern::union_all(
            inner
                .into_iter()
                .map(|inner| rewrite(inner, needed, input))
                .collect::<Vec<_>>(),
        ),
        GraphPattern::Join {
            left,
            right,
            algorithm,
        } => {
            let left_needed = with(needed, used_variables(&right));
            let right_needed = with(needed, used_variables(&left));
            GraphPattern::join(
                rewrite(*left, left_needed.as_ref(), input),
                rewrite(*right, right_needed.as_ref(), input),
                algorithm,
            )
        }
        #[cfg(feature = "sep-0006")]
        GraphPattern::Lateral { left, right } => {
            let mut right_input = input.clone();
            right_input.extend(bound_variables(&left));
            let right = rewrite(*right, needed, &right_input);
            let Some(left_needed) = with(needed, used_variables(&right)) else {
                return GraphPattern::lateral(rewrite(*left, None, input), right);
            };
            let droppable = bound_variables(&left)
                .into_iter()
                .filter(|v| !left_needed.contains(v) && !input.contains(v))
                .collect::<HashSet<_>>();
            if droppable.is_empty() {
                return GraphPattern::lateral(rewrite(*left, Some(&left_needed), input), right);
            }
            // The variables `left` uses, those bound by the input (read by its filters)
            // included, but for the ones dropped.
            let mut kept = used_variables(&left)
                .into_iter()
                .filter(|v| !droppable.contains(*v))
                .cloned()
                .collect::<Vec<_>>();
            kept.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
            GraphPattern::lateral(
                GraphPattern::distinct(GraphPattern::project(*left, kept)),
                right,
            )
        }
        pattern => pattern,
    }
}

/// The variables `pattern` may bind.
fn bound_variables(pattern: &GraphPattern) -> HashSet<Variable> {
    infer_graph_pattern_types(pattern, VariableTypes::default())
        .iter()
        .map(|(v, _)| v.clone())
        .collect()
}

/// `needed` and `variables`, when under a `DISTINCT`.
fn with<'a>(
    needed: Option<&HashSet<Variable>>,
    variables: impl IntoIterator<Item = &'a Variable>,
) -> Option<HashSet<Variable>> {
    needed.map(|needed| {
        let mut needed = needed.clone();
        needed.extend(variables.into_iter().cloned());
        needed
    })
}

/// The variables `pattern` mentions (those of a sub-query: its projection only).
fn used_variables(pattern: &GraphPattern) -> HashSet<&Variable> {
    let mut variables = HashSet::new();
    pattern.lookup_used_variables(&mut |v| {
        variables.insert(v);
    });
    variables
}
