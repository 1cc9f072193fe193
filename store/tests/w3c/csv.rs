//! The CSV results format drops datatypes and languages, so a CSV test compares text: the
//! engine's results are written as CSV, then both documents are read back cell by cell
//! (`_:` cells as blank nodes, every other cell as a plain string, an empty cell as unbound)
//! and compared as solutions.

use crate::fixtures::{Context, Failure};
use crate::results::{Results, Solutions};
use lodestone_store::sparql::QueryResults;
use oxrdf::{BlankNode, Literal, Term, Variable};
use sparesults::{QueryResultsFormat, QueryResultsSerializer};

/// Serializes the engine's solutions as CSV.
pub fn to_csv(results: QueryResults<'_>) -> Result<String, Failure> {
    let QueryResults::Solutions(solutions) = results else {
        return Err("CSV results need a SELECT query".into());
    };
    let mut serializer = QueryResultsSerializer::from_format(QueryResultsFormat::Csv)
        .serialize_solutions_to_writer(Vec::new(), solutions.variables().to_vec())
        .context("writing CSV")?;
    for solution in solutions {
        let solution = solution.context("evaluating the query")?;
        serializer.serialize(&solution).context("writing CSV")?;
    }
    let bytes = serializer.finish().context("writing CSV")?;
    String::from_utf8(bytes).context("CSV output")
}

/// Reads a CSV results document as solutions of plain strings and blank nodes.
pub fn from_csv(text: &str) -> Result<Results, Failure> {
    let mut records = parse_records(text)?.into_iter();
    let header = records.next().ok_or("CSV results without a header line")?;
    let variables = header
        .iter()
        .map(|name| Variable::new(name).context("CSV header"))
        .collect::<Result<Vec<_>, _>>()?;
    let rows: Vec<Vec<(Variable, Term)>> = records
        .map(|record| {
            variables
                .iter()
                .zip(record)
                .filter(|(_, cell)| !cell.is_empty())
                .map(|(variable, cell)| (variable.clone(), cell_term(cell)))
                .collect()
        })
        .collect();
    Ok(Results::Solutions(Solutions::new(
        &variables,
        rows.iter()
            .map(|row| row.iter().map(|(v, t)| (v, t)).collect()),
        false,
    )))
}

fn cell_term(cell: String) -> Term {
    match cell.strip_prefix("_:") {
        Some(label) => BlankNode::new_unchecked(label).into(),
        None => Literal::new_simple_literal(cell).into(),
    }
}

/// Splits RFC 4180 text into records of unquoted fields.
fn parse_records(text: &str) -> Result<Vec<Vec<String>>, Failure> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("CSV ends inside a quoted field".into());
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}
