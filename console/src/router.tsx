import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** The console lives under /console/; the server answers index.html for every page path below it. */
export const BASE = '/console';

/** An invite link may come as `/console/#/join/{token}`: it becomes the path form, once. */
function adoptHashRoute(): void {
  if (location.hash.startsWith('#/')) history.replaceState(null, '', `${BASE}${location.hash.slice(1)}`);
}

/** The path below /console, always starting with `/`. */
function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

const listeners = new Set<() => void>();

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${path}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(() => {
    adoptHashRoute();
    return currentPath();
  });
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** A real link (open in a new tab works) that moves inside the app without a reload. */
export function Link({ to, ...props }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={`${BASE}${to}`} onClick={onClick} />;
}
