/**
 * Whether the dashboard colours (docs/cli.md, "Output formats": `--color`/`--no-color`, then NO_COLOR, CLICOLOR and the
 * terminal), handed down once through a context instead of through every component's props.
 */
import { createContext, useContext } from 'react'

/** The dashboard's styling switch. */
export interface Theme {
  /** Colours, bold and inverse on; off leaves plain text (the selection keeps its `›` marker). */
  color: boolean
}

export const ThemeContext = createContext<Theme>({ color: false })

/** The theme of the dashboard being rendered. */
export function useTheme(): Theme {
  return useContext(ThemeContext)
}
