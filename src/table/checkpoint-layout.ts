/**
 * Where a streaming flow's checkpoints lie under its table: `<table>/thund-checkpoints/<flow>/<id>`
 * holds a checkpoint of the whole state, and a checkpoint of one batch's changes on top of it lies
 * inside that folder (`…/<id>/<change id>`), so a snapshot's pointer to either keeps the whole
 * folder, with every change the pointer builds on, from expiry and orphan removal.
 */
export const CHECKPOINTS_FOLDER = 'thund-checkpoints';

export function wholeCheckpointLocation(tableLocation: string, flowName: string, id: string): string {
  return `${tableLocation.replace(/\/+$/, '')}/${CHECKPOINTS_FOLDER}/${encodeURIComponent(flowName)}/${id}`;
}

export function changesCheckpointLocation(wholeLocation: string, id: string): string {
  return `${wholeLocation}/${id}`;
}

/** The folder of the whole checkpoint a pointer builds on: the pointer itself, or the folder holding its changes. */
export function checkpointFolderOf(location: string): string {
  const marker = `/${CHECKPOINTS_FOLDER}/`;
  const at = location.lastIndexOf(marker);
  if (at < 0) return location;
  const [flow, whole] = location.slice(at + marker.length).split('/');
  return whole === undefined ? location : `${location.slice(0, at + marker.length)}${flow}/${whole}`;
}
