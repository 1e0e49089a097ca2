import type { HTMLAttributes, ReactNode } from 'react';
import { Empty, ErrorNote, Pager } from '../components/ui.tsx';
import type { List } from './use-list.ts';

export interface Column<T> {
  header: ReactNode;
  cell: (item: T) => ReactNode;
  /** Left out (header and cells) when false: a column only some roles see. */
  shown?: boolean;
  className?: string;
}

/**
 * A list screen's table: the error, the empty state once the list has answered, the rows and the
 * pager, the same on every screen. Text in cells is React text: what partners wrote stays text.
 */
export function ListTable<T>({
  list,
  columns,
  rowKey,
  rowProps,
  empty,
  label,
}: {
  list: List<T>;
  columns: Column<T>[];
  rowKey: (item: T) => string;
  /** A row's class, test id, data attributes. */
  rowProps?: (item: T) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string>;
  /** What an empty list says: `{ title, children }` of <Empty>. */
  empty: { title: string; body?: ReactNode };
  /** The table's accessible name. */
  label?: string;
}) {
  const shown = columns.filter((column) => column.shown !== false);
  return (
    <>
      <ErrorNote error={list.error} />
      {list.page && list.items.length === 0 ? (
        <Empty title={empty.title}>{empty.body}</Empty>
      ) : (
        <div className="table-wrap">
          <table aria-label={label}>
            <thead>
              <tr>
                {shown.map((column, index) => (
                  <th key={index} scope="col" className={column.className}>
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {list.items.map((item) => (
                <tr key={rowKey(item)} {...rowProps?.(item)}>
                  {shown.map((column, index) => (
                    <td key={index} className={column.className}>
                      {column.cell(item)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={list.page} onPage={list.setPage} />
    </>
  );
}
