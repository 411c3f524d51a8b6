/**
 * PostgreSQL array literals for statement parameters. pg's generic conversion of a JS array runs two regular
 * expressions over every element, which showed in the push and ack paths; these write the literal directly.
 */

/** An array of quoted strings (NULL for null); only `"` and `\` need a backslash inside quotes. */
export function textArray(values: readonly (string | null)[]): string {
  let literal = '{'
  for (let index = 0; index < values.length; index++) {
    if (index > 0) literal += ','
    const value = values[index]
    if (value === null || value === undefined) literal += 'NULL'
    else if (value.includes('"') || value.includes('\\')) literal += `"${value.replace(/["\\]/g, '\\$&')}"`
    else literal += `"${value}"`
  }
  return literal + '}'
}

/** An array of uuids as the broker and PostgreSQL write them (hex and dashes: nothing to quote). */
export function uuidArray(values: readonly string[]): string {
  return `{${values.join(',')}}`
}

export function booleanArray(values: readonly boolean[]): string {
  let literal = '{'
  for (let index = 0; index < values.length; index++) {
    if (index > 0) literal += ','
    literal += values[index] ? 't' : 'f'
  }
  return literal + '}'
}
