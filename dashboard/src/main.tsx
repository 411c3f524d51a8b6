/** The dashboard's entry: applies the stored theme, then renders the app into #root. */
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { applyStoredTheme } from './theme'
import 'uplot/dist/uPlot.min.css'
import './styles.css'

applyStoredTheme()
const root = document.getElementById('root')
if (root === null) throw new Error('index.html has no #root element')
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
