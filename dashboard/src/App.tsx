/**
 * The dashboard: the header, then the view the URL names, or the sign-in form while the broker wants a
 * token. The page title follows the view.
 */
import { useEffect } from 'react'
import { useAuth } from './auth'
import { Header } from './components/Header'
import { Link } from './components/Link'
import { TokenForm } from './components/TokenForm'
import { Dlq } from './pages/Dlq'
import { Messages } from './pages/Messages'
import { Analytics } from './pages/Analytics'
import { Overview } from './pages/Overview'
import { ConsumerGroup } from './pages/ConsumerGroup'
import { ConsumerGroups, groupLabel } from './pages/ConsumerGroups'
import { Operations } from './pages/Operations'
import { Queue } from './pages/Queue'
import { Queues } from './pages/Queues'
import { Traces } from './pages/Traces'
import { Replicas } from './pages/Replicas'
import { Streams } from './pages/Streams'
import { System } from './pages/System'
import { useRoute, type Route } from './router'

function titleOf(route: Route): string {
  switch (route.view) {
    case 'overview':
      return 'Overview'
    case 'queues':
      return 'Queues'
    case 'queue':
      return `Queue ${route.name}`
    case 'messages':
      return 'Messages'
    case 'dlq':
      return 'Dead-letter queue'
    case 'traces':
      return 'Traces'
    case 'analytics':
      return 'Analytics'
    case 'system':
      return 'System'
    case 'replicas':
      return 'Replicas'
    case 'streams':
      return 'Streams'
    case 'not-found':
      return 'Not found'
    case 'operations':
      return 'Operations'
    case 'consumer-groups':
      return 'Consumer groups'
    case 'consumer-group':
      return `Consumer group ${groupLabel(route.name)}`
  }
}

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'overview':
      return <Overview span={route.window} />
    case 'queues':
      return <Queues sort={route.sort} dir={route.dir} search={route.search} />
    case 'queue':
      return <Queue name={route.name} />
    case 'messages':
      return <Messages route={route} />
    case 'dlq':
      return <Dlq route={route} />
    case 'traces':
      return <Traces name={route.name} />
    case 'analytics':
      return <Analytics span={route.window} />
    case 'system':
      return <System span={route.window} />
    case 'replicas':
      return <Replicas span={route.window} />
    case 'streams':
      return <Streams />
    case 'not-found':
      return (
        <>
          <h1>Not found</h1>
          <p>
            The dashboard has no page at <code>{route.path}</code>. <Link href="/">Go to the overview</Link>.
          </p>
        </>
      )
    case 'operations':
      return <Operations span={route.window} />
    case 'consumer-groups':
      return <ConsumerGroups threshold={route.threshold} lagging={route.lagging} search={route.search} />
    case 'consumer-group':
      return <ConsumerGroup name={route.name} threshold={route.threshold} />
  }
}

export function App() {
  const route = useRoute()
  const auth = useAuth()
  const title = titleOf(route)
  useEffect(() => {
    document.title = `${title} · Queen`
  }, [title])
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header route={route} />
      <main id="main" tabIndex={-1}>
        {auth.required ? <TokenForm /> : <View route={route} />}
      </main>
    </>
  )
}
