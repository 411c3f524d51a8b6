/**
 * Light and dark themes: the system's preference (prefers-color-scheme, followed while it changes) until the
 * user picks one with the header's toggle, which is kept in localStorage. The theme in force is set as
 * `data-theme` on <html>, which styles.css reads.
 */
import { useSyncExternalStore } from 'react'

/** A theme the user can pick. */
export type Theme = 'light' | 'dark'

const KEY = 'queen.theme'
const listeners = new Set<() => void>()
const media = window.matchMedia('(prefers-color-scheme: dark)')

function stored(): Theme | undefined {
  const value = window.localStorage.getItem(KEY)
  return value === 'light' || value === 'dark' ? value : undefined
}

/** The theme in force: the user's pick, else the system's. */
export function currentTheme(): Theme {
  return stored() ?? (media.matches ? 'dark' : 'light')
}

/** Sets `data-theme` to the theme in force, and again whenever the system's preference changes. */
export function applyStoredTheme(): void {
  document.documentElement.setAttribute('data-theme', currentTheme())
}

media.addEventListener('change', applyStoredTheme)

/** Stores a pick and applies it. */
export function setTheme(theme: Theme): void {
  window.localStorage.setItem(KEY, theme)
  applyStoredTheme()
  for (const listener of listeners) listener()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  media.addEventListener('change', listener)
  return () => {
    listeners.delete(listener)
    media.removeEventListener('change', listener)
  }
}

/** The theme in force, re-rendering when it changes. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, currentTheme)
}
